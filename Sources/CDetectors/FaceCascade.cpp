// Faces with OpenCV's Haar cascades: the face cascade over the whole image, then (optionally) the
// eye cascade inside each face's upper part, for the roll and yaw estimates made in Swift.
#include "CDetectors.h"

// Found through Sources/COpenCV/opencv4, a link to Debian's /usr/include/opencv4.
#if !__has_include(<opencv2/objdetect.hpp>)
#error "OpenCV's headers are missing (/usr/include/opencv4): apt-get install libopencv-objdetect-dev opencv-data"
#endif
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <vector>

struct ELFaceCascade {
    cv::CascadeClassifier face;
    cv::CascadeClassifier eye;
    bool hasEyeCascade = false;
};

static void writeError(char *error, size_t size, const char *format, const char *detail) {
    if (error && size > 0) snprintf(error, size, format, detail);
}

ELFaceCascade *el_face_cascade_create(const char *faceCascadePath, const char *eyeCascadePath,
                                      char *error, size_t errorSize) {
    try {
        auto *cascade = new ELFaceCascade();
        if (!cascade->face.load(faceCascadePath) || cascade->face.empty()) {
            writeError(error, errorSize, "cannot load the face cascade %s", faceCascadePath);
            delete cascade;
            return nullptr;
        }
        if (eyeCascadePath) {
            if (!cascade->eye.load(eyeCascadePath) || cascade->eye.empty()) {
                writeError(error, errorSize, "cannot load the eye cascade %s", eyeCascadePath);
                delete cascade;
                return nullptr;
            }
            cascade->hasEyeCascade = true;
        }
        return cascade;
    } catch (const std::exception &exception) {
        writeError(error, errorSize, "OpenCV failed to load a cascade: %s", exception.what());
        return nullptr;
    }
}

/// Looks for two eyes in the upper part of `face` (one each side of its centre line) and stores
/// their centres in `result`; leaves `hasEyes` 0 when it does not find both.
static void findEyes(ELFaceCascade *cascade, const cv::Mat &image, const cv::Rect &face, ELFaceResult &result) {
    cv::Rect upper(face.x, face.y + face.height / 5, face.width, face.height * 2 / 5);
    upper &= cv::Rect(0, 0, image.cols, image.rows);
    if (upper.width < 8 || upper.height < 4) return;
    // Eyes in small faces are under the cascade's 20-pixel window: look at the region enlarged.
    double scale = face.width < 160 ? 160.0 / face.width : 1.0;
    cv::Mat region;
    if (scale > 1.0) cv::resize(image(upper), region, cv::Size(), scale, scale, cv::INTER_LINEAR);
    else region = image(upper);
    std::vector<cv::Rect> eyes;
    int minimum = std::max(8, int(face.width * scale / 8));
    cascade->eye.detectMultiScale(region, eyes, 1.1, 3, 0, cv::Size(minimum, minimum));
    double middle = region.cols / 2.0;
    const cv::Rect *left = nullptr, *right = nullptr;
    for (const auto &eye : eyes) {
        double centre = eye.x + eye.width / 2.0;
        if (centre < middle) { if (!left || eye.area() > left->area()) left = &eye; }
        else if (!right || eye.area() > right->area()) right = &eye;
    }
    if (!left || !right) return;
    result.hasEyes = 1;
    result.leftEyeX = float(upper.x + (left->x + left->width / 2.0) / scale);
    result.leftEyeY = float(upper.y + (left->y + left->height / 2.0) / scale);
    result.rightEyeX = float(upper.x + (right->x + right->width / 2.0) / scale);
    result.rightEyeY = float(upper.y + (right->y + right->height / 2.0) / scale);
}

int el_face_cascade_detect(ELFaceCascade *cascade, const uint8_t *luma, int width, int height, int stride,
                           int minimumSize, ELFaceResult *faces, int capacity, char *error, size_t errorSize) {
    try {
        cv::Mat input(height, width, CV_8UC1, const_cast<uint8_t *>(luma), size_t(stride));
        // No histogram equalization: measured on the portraits it added a false positive and
        // took agreeing windows away from the real faces.
        std::vector<cv::Rect> found;
        std::vector<int> neighbors;
        int minimum = std::max(minimumSize, 1);
        cascade->face.detectMultiScale(input, found, neighbors, 1.1, 3, 0, cv::Size(minimum, minimum));
        for (size_t index = 0; index < found.size() && int(index) < capacity; ++index) {
            ELFaceResult result = {};
            const cv::Rect &box = found[index];
            result.x = float(box.x);
            result.y = float(box.y);
            result.width = float(box.width);
            result.height = float(box.height);
            result.neighbors = index < neighbors.size() ? neighbors[index] : 0;
            if (cascade->hasEyeCascade) findEyes(cascade, input, box, result);
            faces[index] = result;
        }
        return int(found.size());
    } catch (const std::exception &exception) {
        writeError(error, errorSize, "OpenCV face detection failed: %s", exception.what());
        return -1;
    }
}

void el_face_cascade_destroy(ELFaceCascade *cascade) { delete cascade; }
