package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class EntryLayoutTest {

    private static final long[] LENGTHS = {0, 1, 100, 127, 128, 129, 16_383, 16_384, (1 << 21) - 1, 1 << 21,
        (1 << 28) - 1, 1 << 28, EntryLayout.MAX_LENGTH};

    @Test
    void shouldDecodeWhatItWroteWhetherLengthsTakeTheOneLoadPathOrNot() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(64);
            for (int meta = 0; meta < 4; meta++) {
                for (long k : LENGTHS) {
                    for (long v : LENGTHS) {
                        m.fill((byte) 0x5A);
                        long written = EntryLayout.writeHeader(m, 16, meta, k, v);
                        String what = "meta=" + meta + " keyLength=" + k + " valueLength=" + v;
                        assertEquals(written, EntryLayout.header(m, 16), what);
                        assertEquals(k, EntryLayout.keyLength(written), what);
                        assertEquals(v, EntryLayout.valueLength(written), what);
                        assertEquals((meta & EntryLayout.META_HAS_EXPIRY) != 0 ? 8 : 0, EntryLayout.tailBytes(written), what);
                    }
                }
            }
        }
    }

    @Test
    void shouldRefuseUnknownMetaBitsOnBothPaths() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(64);
            for (long k : new long[] {3, 300}) {
                for (long v : new long[] {5, 300}) {
                    for (int bit = 2; bit < 8; bit++) {
                        EntryLayout.writeHeader(m, 16, 1 << bit, k, v);
                        assertEquals(-1, EntryLayout.header(m, 16), "meta bit " + bit + " keyLength=" + k + " valueLength=" + v);
                    }
                }
            }
        }
    }

    @Test
    void shouldDecodeEveryTwoByteValueLengthFromItsBytesAndRefuseOneNotInShortestForm() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(64);
            for (int meta = 0; meta < 4; meta++) {
                for (int k = 0; k < 128; k += 9) {
                    for (int low = 0; low < 128; low++) {
                        for (int high = 0; high < 128; high++) {
                            m.set(JAVA_BYTE, 16 + EntryLayout.META, (byte) meta);
                            m.set(JAVA_BYTE, 16 + EntryLayout.LENGTHS, (byte) k);
                            m.set(JAVA_BYTE, 17 + EntryLayout.LENGTHS, (byte) (0x80 | low));
                            m.set(JAVA_BYTE, 18 + EntryLayout.LENGTHS, (byte) high);
                            long header = EntryLayout.header(m, 16);
                            String what = "meta=" + meta + " keyLength=" + k + " value varint bytes " + (0x80 | low) + "," + high;
                            if (high == 0) {
                                // Two bytes for a length under 128: not the shortest form, so damage.
                                assertEquals(-1, header, what);
                            } else {
                                assertEquals(k, EntryLayout.keyLength(header), what);
                                assertEquals(low | high << 7, EntryLayout.valueLength(header), what);
                                assertEquals((meta & EntryLayout.META_HAS_EXPIRY) != 0 ? 8 : 0, EntryLayout.tailBytes(header), what);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldCompareKeysOfEveryLengthByteForByte() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment stored = arena.allocate(64);
            for (int len = 0; len <= 40; len++) {
                byte[] key = new byte[len];
                for (int i = 0; i < len; i++) {
                    key[i] = (byte) (i * 37 + len);
                }
                MemorySegment.copy(key, 0, stored, JAVA_BYTE, 3, len);
                MemorySegment k = MemorySegment.ofArray(key);
                assertTrue(EntryLayout.sameBytes(stored, 3, k, len), "len=" + len);
                for (int at = 0; at < len; at++) {
                    stored.set(JAVA_BYTE, 3 + at, (byte) (key[at] ^ 1));
                    assertFalse(EntryLayout.sameBytes(stored, 3, k, len), "len=" + len + " differing at " + at);
                    stored.set(JAVA_BYTE, 3 + at, key[at]);
                }
            }
        }
    }
}
