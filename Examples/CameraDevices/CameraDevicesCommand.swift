// camera-devices: lists V4L2 capture devices (replaced by the camera work).
@main
struct CameraDevicesCommand {
    static func main() { print("no camera support yet") }
}
