// SPDX-License-Identifier: Apache-2.0
// A deliberate data race: two threads add to one counter with no lock.
// The ThreadSanitizer stage (scripts/tsan-test.sh) runs this first and
// fails unless ThreadSanitizer reports it, so that a clean run of the
// daemon's suites means "no race found", not "nothing was looking".
//
// Two threads of its own, both started before either is joined: nothing
// orders one's writes before the other's, so ThreadSanitizer reports the
// race even when a starved host runs them one after the other. (It once
// used DispatchQueue.concurrentPerform, which on a busy CI host ran both
// iterations on one thread: no race to see, and the stage failed.)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

nonisolated(unsafe) var counter = 0

func addToCounter(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    for _ in 0..<100_000 { counter += 1 }
    return nil
}

var threads: [pthread_t] = []
for _ in 0..<2 {
    var thread = pthread_t()
    guard pthread_create(&thread, nil, addToCounter, nil) == 0 else {
        fatalError("tsan-canary: pthread_create failed")
    }
    threads.append(thread)
}
for thread in threads { pthread_join(thread, nil) }
print("tsan-canary: \(counter) (a sum under 200000 shows the race too)")
