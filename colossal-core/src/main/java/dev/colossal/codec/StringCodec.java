package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * {@link String} as a varint byte length and UTF-8 bytes. Unpaired surrogates, which UTF-8 cannot
 * carry, are written as U+FFFD, the replacement character. ASCII, the common case, is written one byte per char
 * in a single pass and read with the JDK's own ASCII fast path.
 */
final class StringCodec extends AbstractCodec<String> {

    static final StringCodec INSTANCE = new StringCodec();

    private StringCodec() {
        super("String");
    }

    @Override
    long size(String v) {
        int n = utf8Length(v);
        return WireFormat.varintSize(n) + n;
    }

    @Override
    long write(String v, MemorySegment s, long off) {
        int chars = v.length();
        int n = utf8Length(v);
        off = WireFormat.putVarint(s, off, n);
        if (n == chars) {
            for (int i = 0; i < chars; i++) {
                s.set(WireFormat.BYTE, off + i, (byte) v.charAt(i));
            }
            return off + n;
        }
        return writeUtf8(v, s, off);
    }

    @Override
    String read(Input in) {
        int n = in.readCount("String", 1);
        byte[] bytes = new byte[n];
        MemorySegment.copy(in.segment(), WireFormat.BYTE, in.position(), bytes, 0, n);
        in.skip(n);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    String schema() {
        return "string";
    }

    static int utf8Length(String v) {
        int chars = v.length();
        int n = chars;
        for (int i = 0; i < chars; i++) {
            char c = v.charAt(i);
            if (c >= 0x80) {
                if (c < 0x800) {
                    n += 1;
                } else if (Character.isSurrogate(c)) {
                    if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(v.charAt(i + 1))) {
                        n += 2; // 4 bytes for the pair, whose 2 chars were counted once each
                        i++;
                    } else {
                        n += 2; // an unpaired surrogate becomes U+FFFD: 3 bytes
                    }
                } else {
                    n += 2;
                }
            }
        }
        return n;
    }

    private static long writeUtf8(String v, MemorySegment s, long off) {
        int chars = v.length();
        for (int i = 0; i < chars; i++) {
            char c = v.charAt(i);
            if (c < 0x80) {
                s.set(WireFormat.BYTE, off++, (byte) c);
            } else if (c < 0x800) {
                s.set(WireFormat.BYTE, off++, (byte) (0xC0 | (c >> 6)));
                s.set(WireFormat.BYTE, off++, (byte) (0x80 | (c & 0x3F)));
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(v.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, v.charAt(++i));
                    s.set(WireFormat.BYTE, off++, (byte) (0xF0 | (cp >> 18)));
                    s.set(WireFormat.BYTE, off++, (byte) (0x80 | ((cp >> 12) & 0x3F)));
                    s.set(WireFormat.BYTE, off++, (byte) (0x80 | ((cp >> 6) & 0x3F)));
                    s.set(WireFormat.BYTE, off++, (byte) (0x80 | (cp & 0x3F)));
                } else {
                    s.set(WireFormat.BYTE, off++, (byte) 0xEF); // U+FFFD REPLACEMENT CHARACTER
                    s.set(WireFormat.BYTE, off++, (byte) 0xBF);
                    s.set(WireFormat.BYTE, off++, (byte) 0xBD);
                }
            } else {
                s.set(WireFormat.BYTE, off++, (byte) (0xE0 | (c >> 12)));
                s.set(WireFormat.BYTE, off++, (byte) (0x80 | ((c >> 6) & 0x3F)));
                s.set(WireFormat.BYTE, off++, (byte) (0x80 | (c & 0x3F)));
            }
        }
        return off;
    }
}
