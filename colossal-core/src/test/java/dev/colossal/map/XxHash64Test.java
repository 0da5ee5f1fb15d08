package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class XxHash64Test {

    private static long hash(String s, long seed) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return XxHash64.hash(MemorySegment.ofArray(b), 0, b.length, seed);
    }

    @Test
    void shouldMatchPublishedVectors() {
        assertEquals(0xEF46DB3751D8E999L, hash("", 0));
        assertEquals(0x44BC2CF5AD770999L, hash("abc", 0));
        assertEquals(0xFBCEA83C8A378BF1L, hash("Nobody inspects the spammish repetition", 0));
    }

    @Test
    void shouldHashTheSameBytesTheSameWhereverTheyLive() {
        byte[] b = new byte[10_000];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment native_ = arena.allocate(b.length + 3);
            MemorySegment.copy(MemorySegment.ofArray(b), 0, native_, 3, b.length);
            for (int len = 0; len <= 200; len++) {
                assertEquals(XxHash64.hash(MemorySegment.ofArray(b), 0, len, 42),
                        XxHash64.hash(native_, 3, len, 42), "len=" + len);
            }
            // lengths past 4 KiB, at offsets that leave the 8-byte reads unaligned
            for (int len : new int[] {4095, 4096, 4097, 9_999}) {
                assertEquals(XxHash64.hash(native_, 3, len, 42),
                        XxHash64.hash(MemorySegment.ofArray(b), 0, len, 42), "len=" + len);
                assertEquals(XxHash64.hash(native_, 4, len, 42),
                        XxHash64.hash(MemorySegment.ofArray(b), 1, len, 42), "offset 1, len=" + len);
            }
        }
        assertNotEquals(XxHash64.hash(MemorySegment.ofArray(b), 0, 100, 0),
                XxHash64.hash(MemorySegment.ofArray(b), 0, 100, 1));
    }
}
