import ELImage
import Testing

/// Render contexts made by a test, closed when the test ends: tests close what they make, as
/// programs do (`RenderContext.close()`), instead of leaving it to the safety net.
///
/// Make contexts with `TestContexts.make()` in suites marked `.closesContexts`.
package enum TestContexts {
    @TaskLocal package static var current: Registry?
    /// The suite's one context, in a suite marked `.sharesOneContext`.
    @TaskLocal package static var suiteContext: SuiteContext?

    /// A new context on `clock` (the real one when nil) reading back at `readback` (`.automatic`
    /// when nil), closed at the end of the running test (when its suite is `.closesContexts`); in
    /// a suite marked `.sharesOneContext`, without a clock or placement, the suite's one context.
    package static func make(clock: (any BlockingClock)? = nil,
                             readback: ReadbackPlacement? = nil) throws -> RenderContext {
        if let suiteContext, clock == nil, readback == nil { return try suiteContext.context() }
        let context = try RenderContext(clock: clock ?? ContinuousClock(), readback: readback ?? .automatic)
        current?.add(context)
        return context
    }

    /// One context for the tests of a suite, made when the first asks, closed when the suite ends.
    package final class SuiteContext: Sendable {
        private let shared = Locked<RenderContext?>(nil)

        package func context() throws -> RenderContext {
            try shared.withLock { shared in
                if let shared { return shared }
                let context = try RenderContext()
                shared = context
                return context
            }
        }

        package func close() async {
            await shared.withLock { $0 }?.close()
        }
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

/// Runs every test of a suite on one render context (`TestContexts.make()` returns it), closed when
/// the suite ends: the process then has one GL context while the suite's tests run at once. Mesa
/// 22.3's llvmpipe walks every context's pending work without their locks when a texture is
/// uploaded or read back, and crashed a parallel run of the live-streaming suite, whose tests each
/// made their own (ELImage's article "Choosing the GPU", "Known driver bug").
package struct SharesOneContext: SuiteTrait, TestScoping {
    package var isRecursive: Bool { false }

    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? self : nil  // once, around the whole suite
    }

    package func provideScope(for test: Test, testCase: Test.Case?,
                              performing function: @Sendable () async throws -> Void) async throws {
        let suiteContext = TestContexts.SuiteContext()
        do {
            try await TestContexts.$suiteContext.withValue(suiteContext) { try await function() }
        } catch {
            await suiteContext.close()
            throw error
        }
        await suiteContext.close()
    }
}

extension Trait where Self == SharesOneContext {
    /// Runs the suite's tests on one render context (see `SharesOneContext`).
    package static var sharesOneContext: Self { SharesOneContext() }
}

extension Trait where Self == ClosesContexts {
    /// Closes the render contexts each test makes with `TestContexts.make()` (see `ClosesContexts`).
    package static var closesContexts: Self { ClosesContexts() }
}
