// SPDX-License-Identifier: Apache-2.0
import Testing

/// Suites that start acceld (or another program that samples on a real
/// clock) take this trait, `.daemons`: their tests then run one at a time
/// across every such suite of every test target (one process runs them
/// all), while the rest of the suite runs beside them. Two daemons sampling
/// on a 2-core CI host starve each other and the clients the test reads,
/// which no end-to-end assertion should have to allow for.
public struct OneDaemonAtATime: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // The suite's own scope is not a test: only test cases take the turn.
        guard testCase != nil else { return try await function() }
        await DaemonTurn.shared.acquire()
        do {
            // Off the test pool meanwhile, as `.ownThread`: the turn is one
            // test's, not one of the pool's threads.
            try await withTaskExecutorPreference(ThreadPerJob.shared) { try await function() }
        } catch {
            await DaemonTurn.shared.release()
            throw error
        }
        await DaemonTurn.shared.release()
    }
}

extension Trait where Self == OneDaemonAtATime {
    /// One test at a time among the suites that start daemons.
    public static var daemons: Self { OneDaemonAtATime() }
}

/// A lock that waits without holding a thread (the test pool has only as
/// many threads as cores).
private actor DaemonTurn {
    static let shared = DaemonTurn()
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }
}
