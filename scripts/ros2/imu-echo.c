// SPDX-License-Identifier: Apache-2.0
// A ROS 2 subscriber without ROS, on Debian's libddsc (the types idlc
// generated, Sources/CROS2Types): takes COUNT sensor_msgs/msg/Imu messages
// from rt/TOPIC and prints one line each, as it arrives, "stamp
// SEC.NANOSEC frame FRAME_ID acc X Y Z received NANOSECONDS" (the system
// clock when it was taken), then exits 0; exits 1 if fewer came within
// SECONDS. It waits on a waitset, so a message is taken when it arrives.
// Best effort, keep last, as ROS 2's sensor-data QoS. The boot stage's
// guest subscribes with it, and bench_dds.py measures latency with it.
// Usage: imu-echo DOMAIN TOPIC COUNT SECONDS   (TOPIC: imu/data_raw)
#include <stdio.h>
#include <stdlib.h>
#include "ros2_dds.h"

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: imu-echo DOMAIN TOPIC COUNT SECONDS\n");
        return 64;
    }
    int wanted = atoi(argv[3]);
    char name[256];
    snprintf(name, sizeof name, "rt/%s", argv[2]);
    dds_entity_t participant = dds_create_participant((dds_domainid_t)atoi(argv[1]), NULL, NULL);
    if (participant < 0) {
        fprintf(stderr, "imu-echo: no participant: %s\n", dds_strretcode(participant));
        return 69;
    }
    dds_entity_t topic = dds_create_topic(participant, ros2_imu_descriptor(), name, NULL, NULL);
    dds_qos_t *qos = dds_create_qos();
    dds_qset_reliability(qos, DDS_RELIABILITY_BEST_EFFORT, 0);
    dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 64);
    dds_entity_t reader = dds_create_reader(participant, topic, qos, NULL);
    dds_delete_qos(qos);
    if (topic < 0 || reader < 0) {
        fprintf(stderr, "imu-echo: no reader on %s: %s\n", name, dds_strretcode(reader < 0 ? reader : topic));
        return 69;
    }
    dds_entity_t waitset = dds_create_waitset(participant);
    dds_waitset_attach(waitset, dds_create_readcondition(reader, DDS_ANY_STATE), reader);
    setvbuf(stdout, NULL, _IOLBF, 0);  // each line as its message arrives
    int received = 0;
    dds_time_t end = dds_time() + DDS_SECS(atoi(argv[4]));
    while (received < wanted && dds_time() < end) {
        dds_waitset_wait_until(waitset, NULL, 0, end);
        void *samples[16] = {0};
        dds_sample_info_t infos[16];
        int n = dds_take(reader, samples, infos, 16, 16);
        dds_time_t now = dds_time();
        for (int i = 0; i < n && received < wanted; i++) {
            if (!infos[i].valid_data) continue;
            const sensor_msgs_msg_dds__Imu_ *imu = samples[i];
            printf("stamp %d.%09u frame %s acc %.4f %.4f %.4f received %lld\n", imu->header.stamp.sec, imu->header.stamp.nanosec,
                   imu->header.frame_id, imu->linear_acceleration.x, imu->linear_acceleration.y, imu->linear_acceleration.z,
                   (long long)now);
            received++;
        }
        if (n > 0) dds_return_loan(reader, samples, n);
    }
    dds_delete(participant);
    if (received < wanted) {
        fprintf(stderr, "imu-echo: %d of %d messages on %s in %s s\n", received, wanted, name, argv[4]);
        return 1;
    }
    return 0;
}
