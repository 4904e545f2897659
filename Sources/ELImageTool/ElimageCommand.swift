import ArgumentParser
import ELImage
import ELImageCommandLine
import ELImageMedia
import Foundation

/// `elimage`: quick GPU pipelines from the command line.
/// Exit codes: 0 success, 1 runtime failure, 2 usage error; errors on stderr in one line.
@main
struct ElimageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "elimage",
        abstract: "GPU video pipelines: decode, filter, convert and encode frames with ELImage.",
        subcommands: [RunCommand.self, FiltersCommand.self, DevicesCommand.self, ControlsCommand.self, AudioDevicesCommand.self])

    /// ArgumentParser's own `--version` prints a fixed string; this one names the renderer too.
    @Flag(name: .long, help: "Print the version and the renderer a pipeline would use (GPU or llvmpipe), then exit.")
    var version = false

    /// `elimage --version`; without a subcommand or a flag, the help.
    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(await VersionReport.text())
    }

    static func main() async {
        do {
            var command = try parseAsRoot()
            // ArgumentParser also takes the root's flags after a subcommand, where --version would
            // be parsed and ignored: it belongs to elimage itself.
            if !(command is ElimageCommand), CommandLine.arguments.dropFirst().prefix(while: { $0 != "--" }).contains("--version") {
                throw UsageError("--version is an option of elimage itself: elimage --version")
            }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as Interrupted {
            Foundation.exit(GracefulStop.exitStatus(for: error.signal))
        } catch let error as UsageError {
            fail("usage: \(error)", code: 2)
        } catch let error as ToolFailure {
            fail("error: \(error)", code: 1)
        } catch let error as ELImageError {
            fail("error: \(userMessage(for: error))", code: 1)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)  // --help, --version
            }
            // ArgumentParser's own validation errors are usage errors.
            let message = oneLine(self.message(for: error))
            fail(code == .validationFailure ? "usage: \(message)" : "error: \(message)",
                 code: code == .validationFailure ? 2 : 1)
        }
    }

    /// ArgumentParser's message on one line; a list of valid values ("  - fast" lines) comma-separated.
    private static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let items = lines.filter { $0.hasPrefix("- ") }.map { $0.dropFirst(2) }
        let text = lines.filter { !$0.hasPrefix("- ") }.joined(separator: " ")
        return items.isEmpty ? text : text + " " + items.joined(separator: ", ")
    }

    private static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("elimage: \(message)\n".utf8))
        Foundation.exit(code)
    }
}

/// `elimage filters`: the filters with their parameters and ranges.
struct FiltersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "filters", abstract: "List the filters and their parameters.")

    @Flag(help: "Print the list as the documentation's filter reference page (Markdown).")
    var markdown = false

    func run() {
        print(markdown ? FilterCatalog.standard.markdownReference : FilterCatalog.standard.listing, terminator: markdown ? "" : "\n")
    }
}
