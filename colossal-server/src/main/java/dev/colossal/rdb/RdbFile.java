package dev.colossal.rdb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

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
 * <p>Built in one array: each key's bytes are written into it in place, and the file's CRC-64
 * follows a step behind the end, over bytes still in cache, so that the body is neither copied twice
 * nor read all again. In memory ({@link #finish}), the array doubles as it fills, and the caller
 * bounds what it asks for. Written through to a channel ({@link #RdbFile(String, long, long,
 * WritableByteChannel)}, then {@link #finishWritten}), the array is a {@link #WRITE_BUFFER} sent
 * to the channel each time it fills, so a file of any size takes that much heap (and one value's
 * bytes, for a bigger value).
 *
 * <p>Per key, what a snapshot calls: {@link #stringKey} for a string, with its bytes where they
 * lie; {@link #keyValue} for any other value, as {@link DumpPayload.Form#RDB} writes it;
 * {@link #key} still takes a whole DUMP payload and drops its footer.
 */
public final class RdbFile {

    private static final int FOOTER = Short.BYTES + Long.BYTES;
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** The largest array the JVM allocates, about. */
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;
    /** How far the checksum lags behind the end before it catches up: bytes read again while in cache. */
    private static final int CRC_STEP = 64 << 10;
    /** The array of a file written through to a channel: what it holds between two writes. */
    public static final int WRITE_BUFFER = 1 << 20;
    private byte[] buf;
    private MemorySegment out;
    /** Where a file written through goes; null for one built in memory. */
    private final WritableByteChannel channel;
    /** Bytes already written to {@link #channel}, before {@code buf}'s first. */
    private long sent;
    private int size;
    /** The CRC-64 of {@code buf[0, crcTo)}. */
    private long crc;
    private int crcTo;

    /**
     * Starts a file with its header and Redis's aux fields.
     *
     * @param redisVersion what {@code redis-ver} says (the version this server answers as)
     * @param nowMillis    the snapshot's time
     * @param usedMemory   what {@code used-mem} says; the array starts at three quarters of it
     *                     (a 300k-key dataset's file came to 0.77 of the maps' bytes), so that a
     *                     big snapshot grows once or twice, not twenty times
     */
    public RdbFile(String redisVersion, long nowMillis, long usedMemory) {
        this(redisVersion, nowMillis, usedMemory, null);
    }

    /**
     * Starts a file written through to {@code channel} (or, if null, built in memory), with its
     * header and Redis's aux fields.
     *
     * @param usedMemory what {@code used-mem} says
     * @param channel    where the file's bytes go as they are made, from its first; {@link #finishWritten} ends it
     */
    public RdbFile(String redisVersion, long nowMillis, long usedMemory, WritableByteChannel channel) {
        this.channel = channel;
        buf = new byte[channel != null ? WRITE_BUFFER : Math.clamp(usedMemory / 4 * 3, CRC_STEP, MAX_ARRAY)];
        out = MemorySegment.ofArray(buf);
        bytes(("REDIS" + String.format("%04d", DumpPayload.VERSION)).getBytes(StandardCharsets.US_ASCII));
        aux("redis-ver", redisVersion);
        aux("redis-bits", "64");
        aux("ctime", Long.toString(nowMillis / 1000));
        aux("used-mem", Long.toString(usedMemory));
        aux("aof-base", "0");
    }

    private void aux(String name, String value) {
        opcode(0xFA);
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
        opcode(0xF5);
        string(code);
    }

    /**
     * Starts database {@code db}'s keys: {@code keys} of them, {@code expiring} with a TTL. Sizing
     * hints only (Redis sizes its tables by them, {@link RdbReader} skips them), so counts taken
     * before the keys are read, and changed by writes meanwhile, are good enough.
     */
    public void database(int db, long keys, long expiring) {
        opcode(0xFE);
        length(db);
        opcode(0xFB);
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
        key(key, payload, payload.length - FOOTER, expireAtMillis);
    }

    /**
     * One key.
     *
     * @param value          its type and value, as {@link DumpPayload.Form#RDB} writes them
     * @param expireAtMillis its deadline, or a negative number for none
     */
    public void keyValue(byte[] key, byte[] value, long expireAtMillis) {
        key(key, value, value.length, expireAtMillis);
    }

    /**
     * One string key, its bytes taken where they lie: no payload between.
     *
     * @param value          the string's bytes
     * @param expireAtMillis its deadline, or a negative number for none
     */
    public void stringKey(byte[] key, MemorySegment value, long expireAtMillis) {
        MemorySegment k = MemorySegment.ofArray(key);
        int keySize = DumpPayload.stringSize(k);
        int valueSize = DumpPayload.stringSize(value);
        int at = room(Long.BYTES + 2 + keySize + valueSize);
        at = deadline(at, expireAtMillis);
        buf[at] = RdbValues.STRING;
        at = DumpPayload.writeString(out, at + 1, k);
        written(DumpPayload.writeString(out, at, value));
    }

    /** A key whose type and value are {@code typed[0, end)}. */
    private void key(byte[] key, byte[] typed, int end, long expireAtMillis) {
        MemorySegment k = MemorySegment.ofArray(key);
        int at = room(Long.BYTES + 1 + DumpPayload.stringSize(k) + end);
        at = deadline(at, expireAtMillis);
        buf[at] = typed[0];
        at = DumpPayload.writeString(out, at + 1, k);
        System.arraycopy(typed, 1, buf, at, end - 1);
        written(at + end - 1);
    }

    /** Writes the deadline's opcode and time at {@code at} if there is one; @return the offset after */
    private int deadline(int at, long expireAtMillis) {
        if (expireAtMillis < 0) {
            return at;
        }
        buf[at] = (byte) 0xFC;
        out.set(LONG_LE, at + 1, expireAtMillis);
        return at + 1 + Long.BYTES;
    }

    /** @return the bytes written so far */
    public long size() {
        return sent + size;
    }

    /**
     * @return the file built in memory: its end mark and checksum added
     * @throws IllegalStateException if it was written through to a channel
     */
    public byte[] finish() {
        if (channel != null) {
            throw new IllegalStateException("this file went to a channel: end it with finishWritten()");
        }
        end();
        return size == buf.length ? buf : Arrays.copyOf(buf, size);
    }

    /**
     * Writes the end mark, the checksum and what the array still holds to the channel.
     *
     * @return the file's length
     * @throws UncheckedIOException if the channel refused a write (a full disk)
     */
    public long finishWritten() {
        if (channel == null) {
            throw new IllegalStateException("this file is built in memory: end it with finish()");
        }
        end();
        writeOut();
        return sent;
    }

    private void end() {
        int at = room(1 + Long.BYTES);
        buf[at] = (byte) 0xFF;
        crc = Crc64.update(crc, out, crcTo, at + 1);
        out.set(LONG_LE, at + 1, crc);
        size = at + 1 + Long.BYTES;
        crcTo = size;
    }

    /**
     * Makes room for {@code n} more bytes: a file written through sends what the array holds to
     * its channel first; an array still too small doubles.
     *
     * @return where they go: the end
     * @throws IllegalStateException if one array cannot hold the file (in memory) or the bytes (written through)
     * @throws UncheckedIOException if the channel refused a write
     */
    private int room(long n) {
        long need = size + n;
        if (need > buf.length && channel != null && size > 0) {
            writeOut();
            need = n;
        }
        if (need > buf.length) {
            if (need > MAX_ARRAY) {
                throw new IllegalStateException("an RDB file of " + need + " bytes does not fit in one array; bound the snapshot by size()");
            }
            buf = Arrays.copyOf(buf, (int) Math.min(MAX_ARRAY, Math.max(need, 2L * buf.length)));
            out = MemorySegment.ofArray(buf);
        }
        return size;
    }

    /** Sends the array's bytes to the channel, checksummed first, and starts it again empty (back to its size, after a big value grew it). */
    private void writeOut() {
        crc = Crc64.update(crc, out, crcTo, size);
        try {
            ByteBuffer b = ByteBuffer.wrap(buf, 0, size);
            while (b.hasRemaining()) {
                channel.write(b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the RDB file's bytes " + sent + " to " + (sent + size) + ": " + e.getMessage(), e);
        }
        sent += size;
        size = 0;
        crcTo = 0;
        if (buf.length > WRITE_BUFFER) {
            buf = new byte[WRITE_BUFFER];
            out = MemorySegment.ofArray(buf);
        }
    }

    /** Moves the end to {@code end}; the checksum catches up once it lags a step behind. */
    private void written(int end) {
        size = end;
        if (end - crcTo >= CRC_STEP) {
            crc = Crc64.update(crc, out, crcTo, end);
            crcTo = end;
        }
    }

    private void opcode(int op) {
        buf[room(1)] = (byte) op;
        written(size + 1);
    }

    private void bytes(byte[] b) {
        int at = room(b.length);
        System.arraycopy(b, 0, buf, at, b.length);
        written(at + b.length);
    }

    private void string(byte[] s) {
        MemorySegment value = MemorySegment.ofArray(s);
        written(DumpPayload.writeString(out, room(DumpPayload.stringSize(value)), value));
    }

    private void length(long n) {
        written(DumpPayload.writeLength(out, room(DumpPayload.lengthSize(n)), n));
    }
}
