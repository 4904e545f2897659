#version 300 es
// Benchmark floor: BT.709 luma of each pixel, one texelFetch.
precision highp float;
layout(location = 0) out vec4 fragColor;
uniform sampler2D source;

void main() {
    vec4 color = texelFetch(source, ivec2(gl_FragCoord.xy), 0);
    fragColor = vec4(vec3(dot(color.rgb, vec3(0.2126, 0.7152, 0.0722))), color.a);
}
