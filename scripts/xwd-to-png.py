#!/usr/bin/env python3
"""An Xvfb screen as a PNG, for when WebDriver cannot take the screenshot.

WebKitGTK's WebDriver screenshot never answers when the page paints
without accelerated compositing (the app's default). Xvfb can write its
framebuffer to a file instead: start it with `-fbdir DIR`, run the app on
that display, then `python3 scripts/xwd-to-png.py DIR/Xvfb_screen0 out.png`.
Reads a 24/32-bit ZPixmap XWD (what Xvfb writes); no dependencies.
"""
import struct, zlib, sys
data = open(sys.argv[1], 'rb').read()
h = struct.unpack('>25I', data[:100])
header_size, version, fmt, depth, w, hgt = h[0], h[1], h[2], h[3], h[4], h[5]
byte_order, bpp, bpl, ncolors = h[7], h[11], h[12], h[19]
off = header_size + ncolors * 12
px = data[off:off + bpl * hgt]
rows = []
for y in range(hgt):
    line = px[y*bpl:(y+1)*bpl]
    out = bytearray(b'\x00')
    for x in range(w):
        p = line[x*4:x*4+4]
        if byte_order == 0:  # LSBFirst: B G R X
            out += bytes((p[2], p[1], p[0]))
        else:
            out += bytes((p[1], p[2], p[3]))
    rows.append(bytes(out))
raw = b''.join(rows)
def chunk(t, d):
    c = struct.pack('>I', len(d)) + t + d
    return c + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, hgt, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 6)) + chunk(b'IEND', b'')
open(sys.argv[2], 'wb').write(png)
print(w, hgt, bpp, byte_order)
