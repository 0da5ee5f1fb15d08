package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {

    @Test
    void shouldMatchThePublishedCheckValue() {
        byte[] b = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0xE3069283, Crc32c.of(MemorySegment.ofArray(b), 0, b.length));
    }

    @Test
    void shouldSumOneChunkAndSeveralAsTheJdkSumsAnArray() {
        byte[] b = new byte[3 * Crc32c.CHUNK];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 131 + 17);
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mapped = arena.allocate(b.length + 5);
            MemorySegment.copy(b, 0, mapped, java.lang.foreign.ValueLayout.JAVA_BYTE, 5, b.length);
            for (int len = 0; len < b.length; len += len < Crc32c.CHUNK + 2 ? 1 : 37) {
                CRC32C expected = new CRC32C();
                expected.update(b, 0, len);
                assertEquals((int) expected.getValue(), Crc32c.of(mapped, 5, len), "len=" + len);
            }
        }
    }
}
