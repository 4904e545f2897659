// A plain C surface over the C++ detectors ELImageDetection uses: OpenCV's Haar cascades (faces,
// eyes), MTCNN through OpenCV's DNN module (faces with landmarks), MediaPipe's selfie
// segmentation through it (people) and zxing-cpp (barcodes). Images
// are 8-bit luma (RGBA for the landmark networks), rows `stride` bytes apart. Errors come
// back as a message in a caller's buffer; nothing here throws across the C boundary.
#ifndef CDETECTORS_H
#define CDETECTORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: Faces

/// A loaded face cascade (and, optionally, an eye cascade for roll and yaw).
typedef struct ELFaceCascade ELFaceCascade;

/// One face found in a luma image, in that image's pixels (origin top left).
typedef struct {
    float x, y, width, height;
    /// How many overlapping detection windows agreed on this face (OpenCV's neighbour count).
    int neighbors;
    /// 1 when both eyes were found inside the face; then the eye centres below are set.
    int hasEyes;
    float leftEyeX, leftEyeY;   // the eye on the image's left
    float rightEyeX, rightEyeY; // the eye on the image's right
} ELFaceResult;

/// Loads the cascade files (OpenCV XML). `eyeCascadePath` may be NULL (no eye search). Returns NULL
/// and writes a message into `error` when a file cannot be read or is not a cascade.
ELFaceCascade *el_face_cascade_create(const char *faceCascadePath, const char *eyeCascadePath,
                                      char *error, size_t errorSize);

/// Finds faces at least `minimumSize` pixels wide. Writes up to `capacity` faces into `faces` and
/// returns how many were found (possibly more than `capacity`), or -1 with a message in `error`.
int el_face_cascade_detect(ELFaceCascade *cascade, const uint8_t *luma, int width, int height, int stride,
                           int minimumSize, ELFaceResult *faces, int capacity, char *error, size_t errorSize);

void el_face_cascade_destroy(ELFaceCascade *cascade);

// MARK: Faces with landmarks

/// MTCNN's three networks (P-Net, R-Net, O-Net), loaded from ONNX files.
typedef struct ELFaceLandmarkNet ELFaceLandmarkNet;

/// One face with its five landmarks, in the image's pixels (origin top left; pixel i spans i...i+1).
typedef struct {
    float x, y, width, height;
    /// O-Net's face probability, 0...1.
    float score;
    /// x, y pairs: the eye on the image's left, the eye on its right, the nose tip, the mouth corner
    /// on the left, the mouth corner on the right.
    float points[10];
} ELFaceLandmarks;

/// Loads the three networks. Returns NULL and writes a message naming the file into `error` when
/// one cannot be read or is not an ONNX network OpenCV can run.
ELFaceLandmarkNet *el_face_landmark_net_create(const char *proposalPath, const char *refinePath, const char *outputPath,
                                               char *error, size_t errorSize);

/// Finds faces at least `minimumSize` pixels wide in an RGBA image. Writes up to `capacity` faces
/// into `faces` and returns how many were found (possibly more), or -1 with a message in `error`.
int el_face_landmark_net_detect(ELFaceLandmarkNet *net, const uint8_t *rgba, int width, int height, int stride,
                                int minimumSize, ELFaceLandmarks *faces, int capacity, char *error, size_t errorSize);

void el_face_landmark_net_destroy(ELFaceLandmarkNet *net);

// MARK: People

/// A person segmentation network, loaded from its ONNX file.
typedef struct ELPersonSegmenter ELPersonSegmenter;

/// Loads the network, whose input and output are `width` x `height`. Returns NULL and writes a
/// message naming the file into `error` when it cannot be read or is not an ONNX network OpenCV
/// can run.
ELPersonSegmenter *el_person_segmenter_create(const char *modelPath, int width, int height, char *error, size_t errorSize);

/// Finds the people in an RGBA image: writes the network's width x height bytes into `mask`
/// (rows top first, 0 background ... 255 person, the whole image stretched to it).
/// Returns 0, or -1 with a message in `error`.
int el_person_segmenter_run(ELPersonSegmenter *segmenter, const uint8_t *rgba, int width, int height, int stride,
                            uint8_t *mask, char *error, size_t errorSize);

void el_person_segmenter_destroy(ELPersonSegmenter *segmenter);

// MARK: Codes

/// The codes found in one image; read with the accessors below, free with `el_code_list_destroy`.
typedef struct ELCodeList ELCodeList;

/// One decoded code. The strings live as long as their list.
typedef struct {
    /// zxing-cpp's format name: "QRCode", "EAN-13", "Code128", "DataMatrix", ...
    const char *format;
    /// The decoded text (UTF-8).
    const char *text;
    /// The corners in the image's pixels: top left, top right, bottom right, bottom left of the
    /// symbol as printed (x, y pairs).
    float points[8];
} ELCodeResult;

/// Reads every code zxing-cpp supports in the image, trying harder (more scan lines, rotated
/// 1D codes). Returns NULL with a message in `error` on failure.
ELCodeList *el_codes_read(const uint8_t *luma, int width, int height, int stride, char *error, size_t errorSize);

int el_code_list_count(const ELCodeList *list);

/// Code `index` (0 ..< count).
ELCodeResult el_code_list_item(const ELCodeList *list, int index);

void el_code_list_destroy(ELCodeList *list);

#ifdef __cplusplus
}
#endif

#endif
