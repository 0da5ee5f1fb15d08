package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * {@link String} as a varint byte length and UTF-8 bytes. Unpaired surrogates, which UTF-8 cannot
 * carry, are written as {@code '?'}, as {@link String#getBytes} does. ASCII is written in one pass;
 * anything else, and all reading, goes through the JDK's own UTF-8 coder.
 */
final class StringCodec extends NamedCodec<String> {

    static final StringCodec INSTANCE = new StringCodec();

    private StringCodec() {
        super("String");
    }

    @Override
    public long size(String v) {
        int n = utf8Length(v);
        return WireFormat.varintSize(n) + n;
    }

    @Override
    public long write(String v, MemorySegment s, long off) {
        // One pass for ASCII, the common case: assume it, eight chars to a little-endian word, and
        // start over the slow way if any char is not ASCII. Measured faster than getBytes plus a copy.
        int chars = v.length();
        long at = WireFormat.putVarint(s, off, chars);
        int i = 0;
        for (; i + 8 <= chars; i += 8) {
            long word = 0;
            int any = 0;
            for (int k = 0; k < 8; k++) {
                char c = v.charAt(i + k);
                any |= c;
                word |= (long) c << (k << 3);
            }
            if (any >= 0x80) {
                return writeUtf8(v, s, off);
            }
            s.set(WireFormat.LONG, at + i, word);
        }
        for (; i < chars; i++) {
            char c = v.charAt(i);
            if (c >= 0x80) {
                return writeUtf8(v, s, off);
            }
            s.set(WireFormat.BYTE, at + i, (byte) c);
        }
        return at + chars;
    }

    private static long writeUtf8(String v, MemorySegment s, long off) {
        byte[] bytes = v.getBytes(StandardCharsets.UTF_8);
        off = WireFormat.putVarint(s, off, bytes.length);
        MemorySegment.copy(bytes, 0, s, WireFormat.BYTE, off, bytes.length);
        return off + bytes.length;
    }

    @Override
    public String read(Input in) {
        int n = in.readCount("String", 1);
        byte[] bytes = new byte[n];
        MemorySegment.copy(in.segment(), WireFormat.BYTE, in.position(), bytes, 0, n);
        in.skip(n);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public String schema() {
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
                    } // an unpaired surrogate becomes '?', as String.getBytes writes it: one byte, counted

                } else {
                    n += 2;
                }
            }
        }
        return n;
    }
}
