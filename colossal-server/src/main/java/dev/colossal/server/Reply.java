package dev.colossal.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.colossal.memory.SegmentBytes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A connection's outgoing bytes: RESP replies appended in order, in RESP2 or RESP3 framing as the
 * client chose with HELLO. The bytes are in native memory, so the socket writes them with no copy
 * and a stored value is copied straight into them ({@link #valueSlot}). Grows as needed; the
 * connection drains and resets it.
 */
final class Reply {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL2 = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_ARRAY2 = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[][] SMALL_INTS = new byte[1024][];
    private static final byte[] MIN_LONG = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);

    static {
        for (int i = 0; i < SMALL_INTS.length; i++) {
            SMALL_INTS[i] = (":" + i + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
    }

    /**
     * Holds {@link #base}, the buffer replies start in, from {@link #open} to {@link #close}: freed
     * when the connection closes. A direct buffer would wait for a GC, which a server that
     * allocates nothing per request may not run for hours (5,000 connections that came and went
     * left 80 MB behind).
     */
    private Arena baseArena;
    /** The thread's spare first buffer this reply holds ({@link #openSpare}), or null. */
    private Spare spare;
    private MemorySegment base = MemorySegment.NULL;
    private ByteBuffer baseView;
    /** Holds {@link #buf} once it outgrew {@link #base}: closed, and so freed, as soon as it is not needed. */
    private Arena arena;
    private MemorySegment buf = MemorySegment.NULL;
    /** The bytes {@link #buf} holds, for CLIENT LIST on other threads (its {@code rbs}). */
    volatile int capacity;
    private ByteBuffer view;
    int len;
    /** 2 or 3: the protocol the client chose. */
    int protocol = 2;
    /** The length of the last value header {@link #valueSlot} saw, its guess for the next one. */
    private int lastValueHeader = 4;
    /** Error replies since the owner last counted them (INFO's total_error_replies). */
    int errors;
    /** Every error reply this connection was given, never reset: commandstats' failed calls are told by it. */
    long errorsEver;
    /** {@link #errors} by kind, or null if none since the owner last counted them. */
    Map<String, Integer> errorKinds;

    /**
     * Allocates the first buffer, of {@code initial} bytes, confined to the calling thread (the
     * connection's loop), which alone may append, reset and {@link #close}.
     */
    void open(int initial) {
        baseArena = Arena.ofConfined();
        base = baseArena.allocate(initial);
        baseView = base.asByteBuffer();
        buf = base;
        view = baseView;
        capacity = initial;
    }

    /** A thread's first buffer for replies that live a moment on it ({@link #openSpare}): one at a time. */
    private static final class Spare {
        static final int BYTES = 256;
        final MemorySegment segment = Arena.ofAuto().allocate(BYTES);
        final ByteBuffer view = segment.asByteBuffer();
        boolean inUse;
    }

    private static final ThreadLocal<Spare> SPARES = ThreadLocal.withInitial(Spare::new);

    /**
     * Opens on the calling thread's spare first buffer if no other reply holds it, else as {@link
     * #open}: for a reply that lives a moment, as the one a script's commands answer into for each
     * EVAL, where a native buffer allocated and freed per script was ~5% of a short script's CPU.
     * {@link #close} gives the buffer back.
     */
    void openSpare() {
        Spare s = SPARES.get();
        if (s.inUse) {
            open(Spare.BYTES);
            return;
        }
        s.inUse = true;
        spare = s;
        base = s.segment;
        baseView = s.view;
        buf = base;
        view = baseView;
        capacity = Spare.BYTES;
    }

    /**
     * Runs {@code write} on an empty reply of {@code protocol} and returns what it appended: a
     * reply made away from its connection, such as a blocked client's, which another client's write
     * serves on that client's thread.
     *
     * @return the bytes written
     */
    static byte[] capture(int protocol, java.util.function.Consumer<Reply> write) {
        Reply r = new Reply();
        r.open(256);
        try {
            r.protocol = protocol;
            write.accept(r);
            return SegmentBytes.toArray(r.buf, 0, r.len);
        } finally {
            r.close();
        }
    }

    /** Frees every buffer; the Reply takes no more appends. */
    void close() {
        len = 0;
        if (arena != null) {
            arena.close();
            arena = null;
        }
        if (baseArena != null) {
            baseArena.close();
            baseArena = null;
        }
        if (spare != null) {
            spare.inUse = false;
            spare = null;
        }
        base = MemorySegment.NULL;
        buf = MemorySegment.NULL;
        capacity = 0;
        baseView = null;
        view = null;
    }

    /**
     * Empties the buffer, and frees a grown one larger than {@code keepCapacity}, going back to the
     * first. Called on the thread that opened it.
     */
    void reset(int keepCapacity) {
        len = 0;
        if (arena != null && buf.byteSize() > keepCapacity) {
            // Freed now: a direct buffer is freed only after a GC, which a server that allocates
            // nothing per request may not run for hours (a 100 MB GET left 290 MB behind each time).
            arena.close();
            arena = null;
            buf = base;
            view = baseView;
            capacity = (int) base.byteSize();
        }
    }

    /**
     * @param from the first byte not yet written to the socket
     * @return the bytes {@code [from, len)}, for a channel write (the same buffer object each time)
     */
    ByteBuffer pending(int from) {
        return view.limit(len).position(from);
    }

    /**
     * Appends {@code n} bytes of {@code file} from {@code position}: a part of a snapshot, read
     * from disk straight into the buffer.
     *
     * @return the bytes appended
     */
    int read(SnapshotFile file, long position, int n) throws java.io.IOException {
        ensure(n);
        int got = file.read(buf.asSlice(len, n).asByteBuffer(), position);
        len += got;
        return got;
    }

    private void ensure(long extra) {
        if (len + extra > buf.byteSize()) {
            long want = Math.max(buf.byteSize() * 2, len + extra);
            if (want > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("reply length=" + want + " exceeds 2 GiB");
            }
            Arena grown = Arena.ofConfined();
            MemorySegment bigger = grown.allocate(want);
            // All of it, not just [0, len): a value may sit past len waiting for its header.
            MemorySegment.copy(buf, 0, bigger, 0, buf.byteSize());
            if (arena != null) {
                arena.close();
            }
            arena = grown;
            buf = bigger;
            view = bigger.asByteBuffer();
            capacity = (int) want;
        }
    }

    private void raw(byte[] b) {
        ensure(b.length);
        MemorySegment.copy(b, 0, buf, JAVA_BYTE, len, b.length);
        len += b.length;
    }

    private void raw(byte c) {
        ensure(1);
        buf.set(JAVA_BYTE, len++, c);
    }

    private void crlf() {
        buf.set(JAVA_BYTE, len, (byte) '\r');
        buf.set(JAVA_BYTE, len + 1, (byte) '\n');
        len += 2;
    }

    private static int digits(long v) {
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        return digits;
    }

    private void decimal(long v) {
        ensure(21);
        if (v == Long.MIN_VALUE) {
            raw(MIN_LONG);
            return;
        }
        if (v < 0) {
            buf.set(JAVA_BYTE, len++, (byte) '-');
            v = -v;
        }
        int digits = digits(v);
        for (int i = len + digits - 1; i >= len; i--) {
            buf.set(JAVA_BYTE, i, (byte) ('0' + v % 10));
            v /= 10;
        }
        len += digits;
    }

    private void header(byte type, long n) {
        raw(type);
        decimal(n);
        ensure(2);
        crlf();
    }

    /**
     * Where to copy a stored value that is about to become a bulk reply: an offset in
     * {@link #segment()} chosen so that, after {@code prefix} bytes of the stored form, the payload
     * lands just behind its bulk header when the header is as long as the last one was. The caller
     * copies the stored form there (making room with {@link #ensureSlot} if it does not fit), then
     * calls {@link #bulkAt} or nothing (a miss appends nothing).
     *
     * @param prefix bytes of the stored form before the payload, which the header overwrites
     * @return the offset
     */
    long valueSlot(int prefix) {
        long at = len + lastValueHeader - prefix;
        ensure(at - len + 64);
        return at;
    }

    /** @return how many bytes fit from {@code at} to the end of the buffer */
    long room(long at) {
        return buf.byteSize() - at;
    }

    /**
     * Grows the buffer so that {@code n} bytes and a CRLF fit at {@code at}, keeping what is written,
     * and a bulk header longer than the guessed one ({@link #bulkAt} moves the bytes behind it):
     * without that room a value whose header outgrew the guess grew the buffer a second time, to
     * twice its size (a first GET of 40 KB on a connection allocated and copied 40 and 80 KB).
     */
    void ensureSlot(long at, long n) {
        ensure(at + n + 2 + MAX_BULK_HEADER - len);
    }

    /** {@code $}, up to ten digits and CRLF. */
    private static final int MAX_BULK_HEADER = 13;

    /** @return the buffer, valid until the next append */
    MemorySegment segment() {
        return buf;
    }

    /**
     * Turns {@code n} payload bytes already copied to {@code payloadAt} (after {@link #valueSlot})
     * into a bulk reply: writes the header before them, moving them if it is not the guessed length.
     */
    void bulkAt(long payloadAt, int n) {
        int header = 3 + digits(n);
        lastValueHeader = header;
        ensure(header + n + 2L);
        long want = len + header;
        if (payloadAt != want) {
            MemorySegment.copy(buf, payloadAt, buf, want, n);
        }
        buf.set(JAVA_BYTE, len++, (byte) '$');
        decimal(n);
        crlf();
        len += n;
        crlf();
    }

    void ok() {
        raw(OK);
    }

    void simple(String s) {
        raw((byte) '+');
        raw(s.getBytes(StandardCharsets.UTF_8));
        raw(CRLF);
    }

    /**
     * @param text the whole error line, e.g. {@code ERR syntax error}; CR/LF become spaces, and a
     *     client's bytes quoted through {@link Errors#text} go out as they came
     */
    void error(String text) {
        counted(text);
        raw((byte) '-');
        raw(Errors.bytes(text.replace('\r', ' ').replace('\n', ' ')));
        raw(CRLF);
    }

    /**
     * Counts an error reply written by other means (a blocked command's, ended by its key's
     * change): {@code line} is the whole error line, {@code -KIND text}.
     */
    void countError(byte[] line) {
        int end = 1;
        while (end < line.length && line[end] != ' ' && line[end] != '\r') {
            end++;
        }
        counted(new String(line, 1, end - 1, StandardCharsets.ISO_8859_1));
    }

    /** Counts an error reply, by its kind: its first word (ERR, WRONGTYPE, ...), as INFO errorstats counts them. */
    private void counted(String text) {
        errors++;
        errorsEver++;
        int space = text.indexOf(' ');
        String kind = space < 0 ? text : text.substring(0, space);
        if (errorKinds == null) {
            errorKinds = new HashMap<>();
        }
        errorKinds.merge(kind, 1, Integer::sum);
    }

    void integer(long v) {
        if (v >= 0 && v < SMALL_INTS.length) {
            raw(SMALL_INTS[(int) v]);
        } else {
            header((byte) ':', v);
        }
    }

    void bulk(byte[] b) {
        bulk(b, 0, b.length);
    }

    void bulk(byte[] b, int off, int n) {
        header((byte) '$', n);
        ensure(n + 2L);
        MemorySegment.copy(b, off, buf, JAVA_BYTE, len, n);
        len += n;
        crlf();
    }

    /**
     * A batch of bulk strings for this reply, framed on the heap and copied in a few KB at a time:
     * the elements of a list range are mostly a few bytes each, and framing each in the native
     * buffer took five checked stores and a division a digit (a third of an LRANGE of 500 such).
     * Close it before any other append to this reply.
     */
    Batch batch() {
        Batch b = BATCH.get();
        if (b.reply != null) {
            b = new Batch(); // a batch inside a batch, on one thread: rare, so not kept
        }
        b.reply = this;
        return b;
    }

    private static final ThreadLocal<Batch> BATCH = ThreadLocal.withInitial(Batch::new);

    /** See {@link #batch}. One per event-loop thread, reused. */
    static final class Batch implements PackedRun.ElementSink, AutoCloseable {

        /** Elements shorter than this are framed here; longer ones go straight to the reply. */
        private static final int SHORT = 100;
        private final byte[] stage = new byte[8 * 1024];
        private int pos;
        private Reply reply;

        void bulk(byte[] b) {
            accept(b, 0, b.length);
        }

        /** A sorted set's score, as {@link ZScore#reply} writes it. */
        void score(double d) {
            byte[] text = ZScore.format(d).getBytes(StandardCharsets.US_ASCII);
            if (reply.protocol < 3) {
                bulk(text);
                return;
            }
            room(text.length + 3);
            stage[pos++] = ',';
            System.arraycopy(text, 0, stage, pos, text.length);
            pos += text.length;
            stage[pos++] = '\r';
            stage[pos++] = '\n';
        }

        /** The header of a RESP3 pair (a member with its score). */
        void pair() {
            room(4);
            stage[pos++] = '*';
            stage[pos++] = '2';
            stage[pos++] = '\r';
            stage[pos++] = '\n';
        }

        private void room(int n) {
            if (pos + n > stage.length) {
                flush();
            }
        }

        @Override
        public void accept(byte[] b, int off, int n) {
            if (n >= SHORT) {
                flush();
                reply.bulk(b, off, n);
                return;
            }
            room(n + 7);
            byte[] s = stage;
            int at = pos;
            s[at++] = '$';
            if (n >= 10) {
                s[at++] = (byte) ('0' + n / 10);
            }
            s[at++] = (byte) ('0' + n % 10);
            s[at++] = '\r';
            s[at++] = '\n';
            System.arraycopy(b, off, s, at, n);
            at += n;
            s[at++] = '\r';
            s[at++] = '\n';
            pos = at;
        }

        private void flush() {
            if (pos > 0) {
                reply.ensure(pos);
                MemorySegment.copy(stage, 0, reply.buf, JAVA_BYTE, reply.len, pos);
                reply.len += pos;
                pos = 0;
            }
        }

        @Override
        public void close() {
            try {
                flush();
            } finally {
                // free for the thread's next batch even if the reply could not take this one's end
                reply = null;
                pos = 0;
            }
        }
    }

    void bulk(String s) {
        bulk(s.getBytes(StandardCharsets.UTF_8));
    }

    void bulk(long v) {
        bulk(Long.toString(v));
    }

    /** RESP3 verbatim text ({@code =}), a bulk string in RESP2. */
    void verbatim(String s) {
        if (protocol < 3) {
            bulk(s);
            return;
        }
        byte[] b = ("txt:" + s).getBytes(StandardCharsets.UTF_8);
        header((byte) '=', b.length);
        raw(b);
        raw(CRLF);
    }

    void nullBulk() {
        raw(protocol >= 3 ? NULL3 : NULL2);
    }

    void nullArray() {
        raw(protocol >= 3 ? NULL3 : NULL_ARRAY2);
    }

    void array(int n) {
        header((byte) '*', n);
    }

    /** A map of {@code n} pairs: RESP3 {@code %}, a flat array of 2n in RESP2. */
    void map(int n) {
        if (protocol >= 3) {
            header((byte) '%', n);
        } else {
            header((byte) '*', 2L * n);
        }
    }

    /**
     * The header of a pub/sub message or (un)subscribe confirmation of {@code n} parts: RESP3's
     * out-of-band push ({@code >}), which a client tells apart from the reply to its last command,
     * or the plain array RESP2 clients read in subscribed mode.
     */
    void push(int n) {
        header(protocol >= 3 ? (byte) '>' : (byte) '*', n);
    }

    /** Appends bytes that are already RESP (a pub/sub message's encoded parts). */
    void append(byte[] resp) {
        raw(resp);
    }

    /**
     * Forgets the first {@code n} bytes, which the socket has taken, moving the rest to the front.
     * A subscriber that reads about as fast as messages arrive never empties its buffer, so without
     * this the bytes already written would pile up in front of the pending ones.
     */
    void dropWritten(int n) {
        MemorySegment.copy(buf, n, buf, 0, len - n);
        len -= n;
    }

    /** Forgets what was appended after {@code mark}, a length this had: a reply CLIENT REPLY drops. */
    void truncate(int mark) {
        len = mark;
    }

    /** A set: RESP3 {@code ~}, an array in RESP2. */
    void set(int n) {
        header(protocol >= 3 ? (byte) '~' : (byte) '*', n);
    }
}
