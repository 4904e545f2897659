#ifndef ELIMAGE_CLIBFUZZER_SHIM_H
#define ELIMAGE_CLIBFUZZER_SHIM_H
/* libFuzzer's driver, from compiler-rt's libclang_rt.fuzzer_no_main (linked only into fuzzing
 * builds of elimage-fuzz; see the Makefile's `fuzz` target). It parses libFuzzer's command line
 * and calls `callback` with each input. */
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
