// SPDX-License-Identifier: Apache-2.0
// The publications DDS discovery announces in a domain, for test_dds:
// one line each, "topic<TAB>type<TAB>reliability<TAB>depth<TAB>user data",
// for SECONDS. Built on Debian's libddsc: PyPI's cyclonedds crashed taking
// its built-in publication topic (a segmentation fault, any writer).
// Usage: publications DOMAIN SECONDS
#include <dds/dds.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: publications DOMAIN SECONDS\n");
        return 64;
    }
    dds_entity_t participant = dds_create_participant((dds_domainid_t)atoi(argv[1]), NULL, NULL);
    if (participant < 0) {
        fprintf(stderr, "publications: %s\n", dds_strretcode(participant));
        return 69;
    }
    dds_entity_t reader = dds_create_reader(participant, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
    dds_time_t end = dds_time() + DDS_SECS(atoi(argv[2]));
    while (dds_time() < end) {
        void *samples[64] = {0};
        dds_sample_info_t infos[64];
        int n = dds_take(reader, samples, infos, 64, 64);
        for (int i = 0; i < n; i++) {
            if (!infos[i].valid_data) continue;
            dds_builtintopic_endpoint_t *endpoint = samples[i];
            dds_reliability_kind_t reliability = DDS_RELIABILITY_BEST_EFFORT;
            dds_duration_t blocking;
            dds_history_kind_t history;
            int32_t depth = 0;
            void *data = NULL;
            size_t size = 0;
            dds_qget_reliability(endpoint->qos, &reliability, &blocking);
            dds_qget_history(endpoint->qos, &history, &depth);
            if (!dds_qget_userdata(endpoint->qos, &data, &size)) size = 0;
            printf("%s\t%s\t%s\t%d\t%.*s\n", endpoint->topic_name, endpoint->type_name,
                   reliability == DDS_RELIABILITY_RELIABLE ? "reliable" : "best-effort", depth, (int)size, data ? (char *)data : "");
            dds_free(data);
        }
        if (n > 0) dds_return_loan(reader, samples, n);
        dds_sleepfor(DDS_MSECS(50));
    }
    fflush(stdout);
    dds_delete(participant);
    return 0;
}
