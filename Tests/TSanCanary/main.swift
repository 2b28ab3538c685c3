// SPDX-License-Identifier: Apache-2.0
// A deliberate data race: two threads add to one counter with no lock.
// The ThreadSanitizer stage (scripts/tsan-test.sh) runs this first and
// fails unless ThreadSanitizer reports it, so that a clean run of the
// daemon's suites means "no race found", not "nothing was looking".
import Dispatch

nonisolated(unsafe) var counter = 0

DispatchQueue.concurrentPerform(iterations: 2) { _ in
    for _ in 0..<100_000 { counter += 1 }
}
print("tsan-canary: \(counter) (a sum under 200000 shows the race too)")
