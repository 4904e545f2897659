#version 300 es
// Face reshape from landmarks: larger eyes and a slimmer lower face, as smooth local warps
// (FaceReshape.swift). Each output pixel reads the input at a displaced position:
// - eyes: a magnifying bulge around each eye centre, radius R: the read position is pulled
//   towards the centre by the factor 1 - s (1 - d^2/R^2)^2 (d: distance to the centre), so the
//   middle is magnified 1 / (1 - s) and the warp meets the untouched picture smoothly at d = R;
// - cheeks: a local translation (Gustafsson's interactive warping) around a point on each side
//   of the lower face: content there moves by `move` towards the face's middle, fading out to
//   nothing at radius R: read at p - w^2 move, w = (R^2 - d^2) / (R^2 - d^2 + |move|^2).
// Outside every disc the input texel is copied exactly (texelFetch), so the background and
// every straight line away from the faces stay as they were. Frames without faces are not drawn
// at all (FaceReshape passes them on).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

#define MAXIMUM_FACES 8
uniform int faceCount;
uniform vec4 eyes[MAXIMUM_FACES];        // left eye centre xy, right eye centre xy (pixels)
uniform vec4 cheeks[MAXIMUM_FACES];      // left cheek centre xy, right cheek centre xy (pixels)
uniform vec4 cheekMoves[MAXIMUM_FACES];  // left cheek move xy, right cheek move xy (pixels)
uniform vec4 shapes[MAXIMUM_FACES];      // eye radius (pixels), eye strength s, cheek radius (pixels), unused

bool moved = false;

vec2 bulge(vec2 p, vec2 centre, float radius, float strength) {
    vec2 d = p - centre;
    float t = dot(d, d) / (radius * radius);
    if (t >= 1.0 || strength <= 0.0) return p;
    moved = true;
    float k = 1.0 - t;
    return centre + d * (1.0 - strength * k * k);
}

vec2 pull(vec2 p, vec2 centre, float radius, vec2 move) {
    vec2 d = p - centre;
    float dd = dot(d, d), rr = radius * radius, mm = dot(move, move);
    if (dd >= rr || mm <= 0.0) return p;
    moved = true;
    float w = (rr - dd) / (rr - dd + mm);
    return p - w * w * move;
}

void main() {
    vec2 size = vec2(textureSize(inputImageTexture, 0));
    vec2 p = gl_FragCoord.xy;  // pixel centres; row 0 is the picture's top row, as the pictures are stored
    for (int k = 0; k < MAXIMUM_FACES; k++) {
        if (k >= faceCount) break;
        p = pull(p, cheeks[k].xy, shapes[k].z, cheekMoves[k].xy);
        p = pull(p, cheeks[k].zw, shapes[k].z, cheekMoves[k].zw);
        p = bulge(p, eyes[k].xy, shapes[k].x, shapes[k].y);
        p = bulge(p, eyes[k].zw, shapes[k].x, shapes[k].y);
    }
    if (!moved) {
        fragColor = texelFetch(inputImageTexture, ivec2(gl_FragCoord.xy), 0);
    } else {
        fragColor = texture(inputImageTexture, p / size);
    }
}
