package dev.colossal.rdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RESTORE's list payloads: Redis 7's quicklist of listpacks (type 18, what {@link DumpPayload#ofList}
 * writes, read back), and what older Redis wrote: a plain list (1), a ziplist (10) and a quicklist
 * of ziplists (14), built here byte by byte with every ziplist encoding.
 */
class RdbListsTest {

    private static final List<String> ELEMENTS = List.of("a", "", "0", "12", "13", "-1", "127", "-200", "30000", "-70000",
            "8000000", "2147483647", "-9223372036854775808", "007", "x".repeat(70), "y".repeat(20_000));

    @Test
    void whatOfListWritesReadsBackWholeOverSeveralNodes() throws Exception {
        List<byte[]> many = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            many.add(ELEMENTS.get(i % ELEMENTS.size()).getBytes(StandardCharsets.US_ASCII));
        }
        DumpPayload.Value v = DumpPayload.valueOf(DumpPayload.ofList(many, DumpPayload.Form.DUMP));
        assertEquals(text(many), text(v.list()));
        assertEquals(true, RdbLists.nodes(many).size() > 10, "8 KiB nodes");
    }

    @Test
    void thePlainListZiplistAndQuicklistOfZiplistsOfOlderRedisAreRead() throws Exception {
        List<byte[]> want = new ArrayList<>();
        ELEMENTS.forEach(e -> want.add(e.getBytes(StandardCharsets.US_ASCII)));
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        plain.write(RdbLists.LIST);
        plain.write(want.size());
        for (byte[] e : want) {
            string(plain, e);
        }
        assertEquals(text(want), text(DumpPayload.valueOf(payload(plain.toByteArray())).list()));

        ByteArrayOutputStream zl = new ByteArrayOutputStream();
        zl.write(RdbLists.ZIPLIST);
        string(zl, ziplist(want));
        assertEquals(text(want), text(DumpPayload.valueOf(payload(zl.toByteArray())).list()));

        ByteArrayOutputStream quick = new ByteArrayOutputStream();
        quick.write(RdbLists.QUICKLIST);
        quick.write(2);
        string(quick, ziplist(want.subList(0, 5)));
        string(quick, ziplist(want.subList(5, want.size())));
        assertEquals(text(want), text(DumpPayload.valueOf(payload(quick.toByteArray())).list()));

        ByteArrayOutputStream empty = new ByteArrayOutputStream();
        empty.write(RdbLists.LIST);
        empty.write(0);
        DumpPayload.RefusedException e = assertThrows(DumpPayload.RefusedException.class,
                () -> DumpPayload.valueOf(payload(empty.toByteArray())));
        assertEquals(DumpPayload.Refusal.BAD_FORMAT, e.refusal());
    }

    private static List<String> text(List<byte[]> l) {
        return l.stream().map(b -> new String(b, StandardCharsets.ISO_8859_1)).toList();
    }

    /** A ziplist of {@code elements}, each integer in the smallest integer encoding as Redis's ziplistPush chose. */
    private static byte[] ziplist(List<byte[]> elements) {
        ByteArrayOutputStream entries = new ByteArrayOutputStream();
        int prev = 0;
        for (byte[] e : elements) {
            ByteArrayOutputStream one = new ByteArrayOutputStream();
            if (prev < 254) {
                one.write(prev);
            } else {
                one.write(0xFE);
                one.writeBytes(le(prev, 4));
            }
            String s = new String(e, StandardCharsets.US_ASCII);
            Long v = null;
            try {
                v = s.equals(Long.toString(Long.parseLong(s))) ? Long.parseLong(s) : null;
            } catch (NumberFormatException x) {
                // a string
            }
            if (v != null && v >= 0 && v <= 12) {
                one.write(0xF1 + (int) (long) v);
            } else if (v != null && v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
                one.write(0xFE);
                one.write((int) (long) v);
            } else if (v != null && v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
                one.write(0xC0);
                one.writeBytes(le(v, 2));
            } else if (v != null && v >= -(1 << 23) && v < (1 << 23)) {
                one.write(0xF0);
                one.writeBytes(le(v, 3));
            } else if (v != null && v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
                one.write(0xD0);
                one.writeBytes(le(v, 4));
            } else if (v != null) {
                one.write(0xE0);
                one.writeBytes(le(v, 8));
            } else if (e.length < 64) {
                one.write(e.length);
                one.writeBytes(e);
            } else if (e.length < 16384) {
                one.write(0x40 | (e.length >> 8));
                one.write(e.length & 0xFF);
                one.writeBytes(e);
            } else {
                one.write(0x80);
                one.writeBytes(ByteBuffer.allocate(4).putInt(e.length).array());
                one.writeBytes(e);
            }
            byte[] entry = one.toByteArray();
            prev = entry.length;
            entries.writeBytes(entry);
        }
        byte[] body = entries.toByteArray();
        ByteBuffer zl = ByteBuffer.allocate(10 + body.length + 1).order(ByteOrder.LITTLE_ENDIAN);
        zl.putInt(10 + body.length + 1).putInt(0).putShort((short) elements.size()).put(body).put((byte) 0xFF);
        return zl.array();
    }

    private static byte[] le(long v, int n) {
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            out[i] = (byte) (v >> (8 * i));
        }
        return out;
    }

    /** An RDB string: its length (6, 14 or 32 bits), then its bytes. */
    private static void string(ByteArrayOutputStream out, byte[] s) {
        if (s.length < 64) {
            out.write(s.length);
        } else if (s.length < 16384) {
            out.write(0x40 | (s.length >> 8));
            out.write(s.length & 0xFF);
        } else {
            out.write(0x80);
            out.writeBytes(ByteBuffer.allocate(4).putInt(s.length).array());
        }
        out.writeBytes(s);
    }

    /** {@code body} with DUMP's footer: RDB version 10 and the CRC-64 of all before it. */
    private static byte[] payload(byte[] body) {
        byte[] out = new byte[body.length + 10];
        System.arraycopy(body, 0, out, 0, body.length);
        MemorySegment o = MemorySegment.ofArray(out);
        out[body.length] = 10;
        long crc = Crc64.update(0, o, 0, body.length + 2);
        ByteBuffer.wrap(out, body.length + 2, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(crc);
        return out;
    }
}
