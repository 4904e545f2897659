// OpenCV 4 is C++ only: CDetectors includes its headers through `opencv4`, a link to Debian's
// include folder (/usr/include/opencv4, from libopencv-objdetect-dev), named in CDetectors'
// header search path. Nothing is imported from Swift.
