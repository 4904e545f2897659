// zxing-cpp is C++ only: CDetectors includes its headers; this module carries its compiler and
// linker flags (pkg-config zxing) to CDetectors. Nothing is imported from Swift.
