import ELImage
import Testing

/// Render contexts made by a test, closed when the test ends: tests close what they make, as
/// programs do (`RenderContext.close()`), instead of leaving it to the safety net.
///
/// Make contexts with `TestContexts.make()` in suites marked `.closesContexts`.
package enum TestContexts {
    @TaskLocal package static var current: Registry?

    /// A new context on `clock` (the real one by default) reading back at `readback`, closed at
    /// the end of the running test (when its suite is `.closesContexts`).
    package static func make(clock: any BlockingClock = ContinuousClock(),
                             readback: ReadbackPlacement = .automatic) throws -> RenderContext {
        let context = try RenderContext(clock: clock, readback: readback)
        current?.add(context)
        return context
    }

    /// The contexts of one test.
    package final class Registry: Sendable {
        private let contexts = Locked<[RenderContext]>([])

        package func add(_ context: RenderContext) { contexts.withLock { $0.append(context) } }

        package func closeAll() async {
            for context in contexts.withLock({ $0 }) { await context.close() }
        }
    }
}

/// Closes the contexts each test of the suite made with `TestContexts.make()` when it ends, also
/// when it fails.
package struct ClosesContexts: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self  // once per test case
    }

    package func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let registry = TestContexts.Registry()
        try await TestContexts.$current.withValue(registry) {
            do {
                try await function()
            } catch {
                await registry.closeAll()
                throw error
            }
            await registry.closeAll()
        }
    }
}

extension Trait where Self == ClosesContexts {
    /// Closes the render contexts each test makes with `TestContexts.make()` (see `ClosesContexts`).
    package static var closesContexts: Self { ClosesContexts() }
}
