package dev.colossal.rdb;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes an RDB file, as {@link RdbReader} draws it, from keys' DUMP payloads ({@link DumpPayload}):
 * what {@code redis-cli --rdb} saves and redis-server loads. Version 10 (Redis 7.0's), uncompressed,
 * checksummed.
 *
 * <pre>
 *  "REDIS0010"
 *  0xFA aux: redis-ver, redis-bits, ctime, used-mem, aof-base   (name string, value string)
 *  0xFA aux: repl-stream-db, repl-id, repl-offset                 a replica's snapshot for its replicas
 *  0xF5 function library code (string)                            one per library
 *  0xFE db (length), 0xFB keys (length), keys with a TTL (length)  per database with keys
 *  [0xFC deadline: 8 bytes LE, Unix ms] type (1 byte) key (string) value   per key: a DUMP payload's
 *                                                                   type and value, its key between
 *  0xFF, then the CRC-64 of every byte before, 8 bytes LE
 * </pre>
 *
 * <p>Built in memory: the caller bounds what it asks for.
 */
public final class RdbFile {

    private static final int FOOTER = Short.BYTES + Long.BYTES;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /**
     * Starts a file with its header and Redis's aux fields.
     *
     * @param redisVersion what {@code redis-ver} says (the version this server answers as)
     * @param nowMillis    the snapshot's time
     * @param usedMemory   what {@code used-mem} says
     */
    public RdbFile(String redisVersion, long nowMillis, long usedMemory) {
        out.writeBytes(("REDIS" + String.format("%04d", DumpPayload.VERSION)).getBytes(StandardCharsets.US_ASCII));
        aux("redis-ver", redisVersion);
        aux("redis-bits", "64");
        aux("ctime", Long.toString(nowMillis / 1000));
        aux("used-mem", Long.toString(usedMemory));
        aux("aof-base", "0");
    }

    private void aux(String name, String value) {
        out.write(0xFA);
        string(name.getBytes(StandardCharsets.US_ASCII));
        string(value.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Where the snapshot stands in the replication stream, as Redis writes it for a replica's full
     * sync: the database the stream's commands run in from here (no SELECT comes before the next
     * change of database), its id and offset. Before any function or database.
     */
    public void replication(int streamDb, String replid, long offset) {
        aux("repl-stream-db", Integer.toString(streamDb));
        aux("repl-id", replid);
        aux("repl-offset", Long.toString(offset));
    }

    /** A function library, as FUNCTION LOAD took its code. */
    public void function(byte[] code) {
        out.write(0xF5);
        string(code);
    }

    /** Starts database {@code db}'s keys: {@code keys} of them, {@code expiring} with a TTL (sizing hints). */
    public void database(int db, long keys, long expiring) {
        out.write(0xFE);
        length(db);
        out.write(0xFB);
        length(keys);
        length(expiring);
    }

    /**
     * One key.
     *
     * @param payload its DUMP payload (type, value, version, checksum)
     * @param expireAtMillis its deadline, or a negative number for none
     */
    public void key(byte[] key, byte[] payload, long expireAtMillis) {
        if (expireAtMillis >= 0) {
            out.write(0xFC);
            byte[] at = new byte[Long.BYTES];
            MemorySegment.ofArray(at).set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0, expireAtMillis);
            out.writeBytes(at);
        }
        out.write(payload[0]);
        string(key);
        out.write(payload, 1, payload.length - 1 - FOOTER);
    }

    /** @return the bytes written so far */
    public long size() {
        return out.size();
    }

    /** @return the file: its end mark and checksum added */
    public byte[] finish() {
        out.write(0xFF);
        byte[] body = out.toByteArray();
        byte[] file = java.util.Arrays.copyOf(body, body.length + Long.BYTES);
        MemorySegment.ofArray(file).set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), body.length,
                Crc64.of(body));
        return file;
    }

    private void string(byte[] s) {
        MemorySegment value = MemorySegment.ofArray(s);
        byte[] b = new byte[DumpPayload.stringSize(value)];
        DumpPayload.writeString(MemorySegment.ofArray(b), 0, value);
        out.writeBytes(b);
    }

    private void length(long n) {
        byte[] b = new byte[DumpPayload.lengthSize(n)];
        DumpPayload.writeLength(MemorySegment.ofArray(b), 0, n);
        out.writeBytes(b);
    }
}
