#version 300 es
// The person over their blurred background: the blurred, background-weighted frame divided by its
// blurred weight is the background's own colour (no halo of the person around them); where the
// weight is almost nothing (deep inside the person) the frame itself stands in.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the frame
uniform sampler2D inputImageTexture2;  // the refined mask, person in .r
uniform sampler2D inputImageTexture3;  // the blurred background: rgb weighted colour, a weight
uniform vec2 edge;
out vec4 fragColor;

void main() {
    vec4 frame = texture(inputImageTexture, textureCoordinate);
    float person = smoothstep(edge.x, edge.y, texture(inputImageTexture2, textureCoordinate).r);
    vec4 blurred = texture(inputImageTexture3, textureCoordinate);
    vec3 background = blurred.a > 0.004 ? blurred.rgb / blurred.a : frame.rgb;
    // Below a weight of 0.02 the division is noisy: blend towards the frame as the weight vanishes.
    background = mix(frame.rgb, background, smoothstep(0.004, 0.02, blurred.a));
    fragColor = vec4(mix(background, frame.rgb, person), frame.a);
}
