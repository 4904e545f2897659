// People, pixel by pixel: one of MediaPipe's selfie segmentation networks (Apache-2.0), run
// through OpenCV's DNN module from the ONNX file `make deps` converts from MediaPipe's TFLite
// model (Models/convert_selfie_segmentation.py). As MediaPipe feeds it: the picture stretched to
// the network's size, RGB in 0...1; out comes the probability of a person at each of its pixels.
#include "CDetectors.h"

#if !__has_include(<opencv2/dnn.hpp>)
#error "OpenCV's DNN headers are missing (/usr/include/opencv4): apt-get install libopencv-dnn-dev"
#endif
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <exception>
#include <memory>

struct ELPersonSegmenter {
    cv::dnn::Net net;
    int width, height;  // the network's input and output size
};

ELPersonSegmenter *el_person_segmenter_create(const char *modelPath, int width, int height, char *error, size_t errorSize) {
    try {
        auto segmenter = std::make_unique<ELPersonSegmenter>();
        segmenter->width = width;
        segmenter->height = height;
        segmenter->net = cv::dnn::readNetFromONNX(modelPath);
        segmenter->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        segmenter->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return segmenter.release();
    } catch (const std::exception &exception) {
        if (error && errorSize > 0) snprintf(error, errorSize, "OpenCV cannot load the network %s: %s", modelPath, exception.what());
        return nullptr;
    }
}

int el_person_segmenter_run(ELPersonSegmenter *segmenter, const uint8_t *rgba, int width, int height, int stride,
                            uint8_t *mask, char *error, size_t errorSize) {
    try {
        cv::Mat image(height, width, CV_8UC4, const_cast<uint8_t *>(rgba), size_t(stride));
        cv::Mat rgb, stretched;
        cv::cvtColor(image, rgb, cv::COLOR_RGBA2RGB);
        int interpolation = width >= segmenter->width ? cv::INTER_AREA : cv::INTER_LINEAR;
        cv::resize(rgb, stretched, cv::Size(segmenter->width, segmenter->height), 0, 0, interpolation);
        segmenter->net.setInput(cv::dnn::blobFromImage(stretched, 1.0 / 255.0, cv::Size(), cv::Scalar(), false, false, CV_32F),
                                "input");
        cv::Mat output = segmenter->net.forward("mask");
        // Read below as height x width contiguous floats: anything else is another network.
        if (output.dims != 4 || output.size[0] != 1 || output.size[1] != 1 || output.size[2] != segmenter->height ||
            output.size[3] != segmenter->width || output.type() != CV_32F || !output.isContinuous() ||
            output.total() != size_t(segmenter->height) * size_t(segmenter->width)) {
            if (error && errorSize > 0) snprintf(error, errorSize, "the segmentation network gave an output of an unexpected shape (%d dimensions, type %d, %zu values; not 1x1x%dx%d floats): not the network ELImage reads; reinstall it with `make models`",
                     output.dims, output.type(), output.total(), segmenter->height, segmenter->width);
            return -1;
        }
        cv::Mat probability(segmenter->height, segmenter->width, CV_32F, output.ptr<float>());
        cv::Mat bytes(segmenter->height, segmenter->width, CV_8U, mask);
        probability.convertTo(bytes, CV_8U, 255.0);  // rounds and saturates
        return 0;
    } catch (const std::exception &exception) {
        if (error && errorSize > 0) snprintf(error, errorSize, "OpenCV failed in the segmentation network: %s", exception.what());
        return -1;
    }
}

void el_person_segmenter_destroy(ELPersonSegmenter *segmenter) { delete segmenter; }
