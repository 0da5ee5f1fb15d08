package dev.colossal.rdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The format classes on bytes redis-server 7.0.15 wrote: {@code SET colossal <62 bytes>} (LZF, as
 * rdbcompression does past 20 bytes) and {@code SET n 300} (an int16), then SAVE. The vectors are
 * that dump: its CRC-64 trailer, and its LZF string whose plain form we set.
 */
class RdbReaderTest {

    private static final byte[] DUMP = HexFormat.of().parseHex("524544495330303130fa0972656469732d76657206372e302e3135fa0a7265"
            + "6469732d62697473c040fa056374696d65c21557086bfa08757365642d6d656dc2b87a1200fa08616f662d62617365c000fe00fb02"
            + "0000016ec12c010008636f6c6f7373616cc3183e0a3031323334353637383930e01e0902616263a002016263ff2337e82de58f57ae");
    private static final String LONG_VALUE = "0123456789".repeat(5) + "abcabcabcabc";
    /** Where the LZF data of key "colossal" starts in {@link #DUMP}, after c3 18 3e, and its length. */
    private static final int LZF_AT = 0x68;
    private static final int LZF_LENGTH = 0x18;

    /** A visitor that keeps what it is told, as text. */
    private static class Seen implements RdbReader.Visitor {
        final List<String> keys = new ArrayList<>();

        @Override
        public void string(int db, byte[] key, byte[] value, long expireAtMillis, long offset) {
            keys.add(db + ":" + new String(key, StandardCharsets.UTF_8) + "="
                    + (value == null ? "?" : new String(value, StandardCharsets.UTF_8)) + "@" + expireAtMillis);
        }

        @Override
        public void other(int db, byte[] key, String type, long expireAtMillis, long offset) {
            keys.add(db + ":" + new String(key, StandardCharsets.UTF_8) + " " + type);
        }
    }

    @Test
    void crc64OfTheStandardCheckString() {
        assertEquals(0xe9c6d914c4b8d9caL, Crc64.of("123456789".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void crc64EightBytesAStepAgreesWithOneByteAStepAtEveryLengthAndSplit() {
        byte[] bytes = new byte[100];
        new java.util.SplittableRandom(3).nextBytes(bytes);
        MemorySegment m = MemorySegment.ofArray(bytes);
        for (int from = 0; from < 9; from++) {
            for (int to = from; to <= bytes.length; to++) {
                long byByte = 0;
                for (int i = from; i < to; i++) { // the definition: one table lookup per byte
                    long crc = (byByte ^ bytes[i]) & 0xff;
                    for (int bit = 0; bit < 8; bit++) {
                        crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x95ac9329ac4bc9b5L : crc >>> 1;
                    }
                    byByte = crc ^ (byByte >>> 8);
                }
                assertEquals(byByte, Crc64.update(0, m, from, to), "bytes " + from + ".." + to);
                int split = (from + to) / 2;
                assertEquals(byByte, Crc64.update(Crc64.update(0, m, from, split), m, split, to), "split at " + split);
            }
        }
    }

    @Test
    void crc64OfARealDumpIsItsTrailer() {
        long trailer = ByteBuffer.wrap(DUMP, DUMP.length - 8, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(trailer, Crc64.update(0, MemorySegment.ofArray(DUMP), 0, DUMP.length - 8));
    }

    @Test
    void lzfOfARealDump() {
        // literal "01234567890", a 39-byte back-reference 10 back that overlaps what it writes, literal
        // "abc", a 7-byte one 3 back, literal "bc"
        byte[] compressed = Arrays.copyOfRange(DUMP, LZF_AT, LZF_AT + LZF_LENGTH);
        assertArrayEquals(LONG_VALUE.getBytes(StandardCharsets.US_ASCII), Lzf.decompress(compressed, LONG_VALUE.length()));
        assertThrows(IllegalArgumentException.class, () -> Lzf.decompress(compressed, LONG_VALUE.length() - 1));
        assertThrows(IllegalArgumentException.class,
                () -> Lzf.decompress(Arrays.copyOf(compressed, compressed.length - 1), LONG_VALUE.length()));
    }

    @Test
    void readsARealDump() throws Exception {
        Seen load = new Seen();
        RdbReader.Result r = RdbReader.read(MemorySegment.ofArray(DUMP), RdbReader.Mode.LOAD, load);
        assertEquals(List.of("0:n=300@0", "0:colossal=" + LONG_VALUE + "@0"), load.keys);
        assertEquals(10, r.version());
        Seen check = new Seen();
        assertEquals(RdbReader.ChecksumState.VERIFIED, RdbReader.read(MemorySegment.ofArray(DUMP), RdbReader.Mode.CHECK, check).checksum());
        assertEquals(List.of("0:n=?@0", "0:colossal=?@0"), check.keys);
    }

    @Test
    void everyCutIsRefusedWithItsOffset() {
        for (int n = 0; n < DUMP.length; n++) {
            byte[] cut = Arrays.copyOf(DUMP, n);
            RdbFormatException e = assertThrows(RdbFormatException.class,
                    () -> RdbReader.read(MemorySegment.ofArray(cut), RdbReader.Mode.CHECK, new Seen()));
            assertTrue(e.offset() <= n, n + ": " + e.getMessage());
            if (n >= 9) {
                assertTrue(e.getMessage().contains("offset"), e.getMessage());
                assertEquals(RdbFormatException.Kind.DAMAGED, e.kind(), e.getMessage());
            }
        }
    }

    @Test
    void everyChangedByteIsRefused() {
        for (int i = 0; i < DUMP.length - 8; i++) {
            byte[] changed = DUMP.clone();
            changed[i] ^= 0x10;
            assertThrows(RdbFormatException.class,
                    () -> RdbReader.read(MemorySegment.ofArray(changed), RdbReader.Mode.CHECK, new Seen()), "byte " + i);
        }
    }

    @Test
    void aChecksumOfZeroMeansChecksumsWereOff() throws Exception {
        byte[] off = DUMP.clone();
        Arrays.fill(off, off.length - 8, off.length, (byte) 0);
        assertEquals(RdbReader.ChecksumState.OFF, RdbReader.read(MemorySegment.ofArray(off), RdbReader.Mode.CHECK, new Seen()).checksum());
    }

    @Test
    void newerVersionsAreRefusedByNumber() {
        byte[] newer = DUMP.clone();
        newer[7] = '1';
        newer[8] = '2';
        RdbFormatException e = assertThrows(RdbFormatException.class,
                () -> RdbReader.read(MemorySegment.ofArray(newer), RdbReader.Mode.CHECK, new Seen()));
        assertEquals(RdbFormatException.Kind.UNSUPPORTED, e.kind());
        assertTrue(e.getMessage().contains("RDB version 12"), e.getMessage());
    }

    /** No module is installed to write one: a module value (type 7) and a module's AUX data, laid out by hand. */
    @Test
    void moduleDataIsPassedOver() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes("REDIS0010".getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(HexFormat.of().parseHex("f7" + "81" + "0102030405060708" + "02" + "02"  // module aux: id, when-opcode, when
                + "05" + "026869" + "00"                                               // a string item, then the end
                + "fe05" + "fc" + "0000000000000080"                                   // db 5, a deadline
                + "07" + "016d" + "81" + "0000000000000401"                            // type 7, key "m", module id
                + "0205" + "0101" + "0300000000" + "040000000000000000" + "0502aaab" + "00" // uint, sint, float, double, string, end
                + "00016b0176"                                                         // k = v
                + "ff"));
        byte[] body = b.toByteArray();
        byte[] file = Arrays.copyOf(body, body.length + 8);
        ByteBuffer.wrap(file, body.length, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(Crc64.of(body));
        Seen seen = new Seen();
        RdbReader.read(MemorySegment.ofArray(file), RdbReader.Mode.LOAD, seen);
        assertEquals(List.of("5:m module", "5:k=v@0"), seen.keys);
    }
    /**
     * The hashes of Redis before 7.0, which a Redis 7.0 still loads: a ziplist (type 13; field "a",
     * value 1 as a 4-bit integer, "b", "hello") and a zipmap (type 9; a value with 3 free bytes
     * after it), laid out by hand in an RDB of version 9.
     */
    @Test
    void hashesOfRedisBefore7AreRead() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes("REDIS0009".getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(HexFormat.of().parseHex("fe00"
                + "0d" + "017a" + "1a" + "1a000000" + "12000000" + "0400" + "000161" + "03f2" + "020162" + "030568656c6c6f" + "ff"
                + "09" + "016d" + "0b" + "01" + "016b" + "0203" + "6162" + "78797a" + "ff"
                + "ff"));
        byte[] body = b.toByteArray();
        byte[] file = Arrays.copyOf(body, body.length + 8);
        ByteBuffer.wrap(file, body.length, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(Crc64.of(body));
        List<String> hashes = new ArrayList<>();
        RdbReader.read(MemorySegment.ofArray(file), RdbReader.Mode.LOAD, new Seen() {
            @Override
            public void hash(int db, byte[] key, List<byte[]> fieldsAndValues, long expireAtMillis, long offset) {
                StringBuilder t = new StringBuilder(new String(key, StandardCharsets.UTF_8) + ":");
                for (byte[] f : fieldsAndValues) {
                    t.append(' ').append(new String(f, StandardCharsets.UTF_8));
                }
                hashes.add(t.toString());
            }
        });
        assertEquals(List.of("z: a 1 b hello", "m: k ab"), hashes);
    }
}
