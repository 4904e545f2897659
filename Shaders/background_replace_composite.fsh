#version 300 es
// The person over a new background. The background picture is fitted to the frame (filling it,
// centred, cropped), and at the person's edge some of the blurred new background is laid over
// the person ("light wrap"), so the edge takes on the new scene's light instead of showing a
// cut-out outline of the old one.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the frame
uniform sampler2D inputImageTexture2;  // the refined mask, person in .r
uniform sampler2D inputImageTexture3;  // the new background
uniform sampler2D inputImageTexture4;  // the new background blurred (the same fit), a: the blurred person alpha
uniform vec4 fit;                      // background coordinate = fit.xy + textureCoordinate * fit.zw
uniform vec2 edge;
uniform float wrap;                    // 0...1: how much of the new scene's light reaches the edge
out vec4 fragColor;

void main() {
    vec4 frame = texture(inputImageTexture, textureCoordinate);
    float person = smoothstep(edge.x, edge.y, texture(inputImageTexture2, textureCoordinate).r);
    vec2 at = fit.xy + textureCoordinate * fit.zw;
    vec3 background = texture(inputImageTexture3, at).rgb;
    vec4 blurred = texture(inputImageTexture4, textureCoordinate);
    // Inside the person near the edge: 1 where the blurred alpha is half, none from 0.9 on.
    float rim = person * smoothstep(0.1, 0.5, 1.0 - blurred.a);
    vec3 subject = mix(frame.rgb, blurred.rgb, wrap * rim);
    fragColor = vec4(mix(background, subject, person), frame.a);
}
