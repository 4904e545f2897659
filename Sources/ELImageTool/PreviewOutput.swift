import ELImage
import ELImageKit
import ELImageMedia
import ELImagePreview

/// `elimage run --preview`: the render context on the desktop's window system, and a window
/// showing the output of the filter chain while the run goes on.
enum PreviewOutput {
    /// A render context for the run: on the window system with `--preview`, headless without.
    /// - Throws: `ToolFailure` naming DISPLAY and WAYLAND_DISPLAY when there is no window system.
    static func makeContext(preview: Bool) throws -> (RenderContext, PreviewDisplay?) {
        guard preview else { return (try RenderContext(), nil) }
        let display: PreviewDisplay
        do {
            display = try PreviewDisplay.connect()
        } catch let error as PreviewError {
            throw ToolFailure("--preview: \(error) (drop --preview to write the files without a window)")
        }
        return (try RenderContext(windowSystem: display), display)
    }

    /// Opens the window and connects it after `last`. Files play at their own pace (their
    /// timestamps; space pauses); cameras show their newest frame. `q`, Escape or the close button
    /// call `stop`, the same graceful stop as Ctrl-C.
    static func attach(after last: ImageOutput, display: PreviewDisplay, input: MediaSource, title: String,
                       context: RenderContext, stop: @escaping @Sendable () -> Void) throws -> PreviewWindow {
        let isCamera = if case .camera = input.kind { true } else { false }
        let window = try PreviewWindow(context: context, display: display, options: .init(
            title: "elimage: \(title)", pacing: isCamera ? .newestFrame : .timestamps))
        window.onCloseRequest = stop
        last.addTarget(window)
        return window
    }
}
