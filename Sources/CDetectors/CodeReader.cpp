// Barcodes with zxing-cpp: every format it reads, trying harder and rotated (its defaults).
#include "CDetectors.h"

#define ZX_USE_UTF8 1
#include <ReadBarcode.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

struct ELCodeList {
    struct Item {
        std::string format;
        std::string text;
        float points[8];
    };
    std::vector<Item> items;
};

ELCodeList *el_codes_read(const uint8_t *luma, int width, int height, int stride, char *error, size_t errorSize) {
    try {
        ZXing::ImageView image(luma, width, height, ZXing::ImageFormat::Lum, stride);
        ZXing::DecodeHints hints;
        hints.setTryHarder(true).setTryRotate(true).setTryDownscale(true);
        auto *list = new ELCodeList();
        for (const auto &result : ZXing::ReadBarcodes(image, hints)) {
            if (!result.isValid()) continue;
            ELCodeList::Item item;
            item.format = ZXing::ToString(result.format());
            item.text = result.text();
            const auto &position = result.position();
            for (int corner = 0; corner < 4; ++corner) {
                item.points[corner * 2] = float(position[corner].x);
                item.points[corner * 2 + 1] = float(position[corner].y);
            }
            list->items.push_back(std::move(item));
        }
        return list;
    } catch (const std::exception &exception) {
        if (error && errorSize > 0) snprintf(error, errorSize, "zxing-cpp failed: %s", exception.what());
        return nullptr;
    }
}

int el_code_list_count(const ELCodeList *list) { return int(list->items.size()); }

ELCodeResult el_code_list_item(const ELCodeList *list, int index) {
    const auto &item = list->items[size_t(index)];
    ELCodeResult result = {};
    result.format = item.format.c_str();
    result.text = item.text.c_str();
    for (int value = 0; value < 8; ++value) result.points[value] = item.points[value];
    return result;
}

void el_code_list_destroy(ELCodeList *list) { delete list; }
