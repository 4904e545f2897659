// record: placeholder until the encoder lands.
@main
struct RecordCommand {
    static func main() { print("recording is not available yet") }
}
