// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Suites whose tests block while something runs on the wall clock (a
/// daemon samples, a client or an example runs for seconds) take this
/// trait, `.ownThread`: each test case then runs on a thread of its own
/// rather than on the test pool's, which has one thread per core (2 on
/// CI). Blocked there, they would hold the threads the rest of the suite
/// computes on, and each other's turn; here they wait side by side.
public struct OwnThread: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(ThreadPerJob.shared) { try await function() }
    }
}

extension Trait where Self == OwnThread {
    /// Each test case on a thread of its own, off the test pool.
    public static var ownThread: Self { OwnThread() }
}

/// A task executor that runs each job it is given on a new thread: a test
/// is a handful of jobs (one per suspension), so the threads are few, and
/// a job that blocks blocks only its own.
final class ThreadPerJob: TaskExecutor {
    static let shared = ThreadPerJob()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.stackSize = 8 << 20  // as the main thread's: the tests' frames are large in a debug build
        thread.start()
    }
}
