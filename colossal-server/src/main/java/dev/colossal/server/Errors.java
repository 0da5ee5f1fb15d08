package dev.colossal.server;

import dev.colossal.map.MapCorruptedException;
import java.io.ByteArrayOutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;

/** Redis 7's error texts, word for word, so clients that match on them behave the same. */
final class Errors {
    static final String SYNTAX = "ERR syntax error";
    static final String BUSY = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
    static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    static final String NOT_FLOAT = "ERR value is not a valid float";
    static final String OVERFLOW = "ERR increment or decrement would overflow";
    static final String NAN_OR_INF = "ERR increment would produce NaN or Infinity";
    static final String NO_SUCH_KEY = "ERR no such key";
    static final String TOO_BIG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
    static final String OFFSET_RANGE = "ERR offset is out of range";
    static final String NOAUTH = "NOAUTH Authentication required.";
    static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    static final String AUTH_NOT_CONFIGURED = "ERR AUTH <password> called without any password configured for the "
            + "default user. Are you sure your configuration is correct?";
    static final String DB_RANGE = "ERR DB index is out of range";
    static final String MAX_CLIENTS = "ERR max number of clients reached";
    static final String INVALID_CURSOR = "ERR invalid cursor";
    static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    static final String SAME_OBJECT = "ERR source and destination objects are the same";

    /** The escape of a byte {@code b >= 0x80} in {@link #text} is {@code ESCAPE | b}: U+DC80 to U+DCFF. */
    private static final char ESCAPE = 0xDC00;

    private Errors() {}

    static String arity(String name) {
        return "ERR wrong number of arguments for '" + name + "' command";
    }

    static String invalidExpire(String name) {
        return "ERR invalid expire time in '" + name + "' command";
    }

    static String unknownCommand(byte[][] args) {
        // Redis: each argument cut to what is left of 128 bytes before its opening quote
        StringBuilder rest = new StringBuilder();
        int bytes = 0;
        for (int i = 1; i < args.length && bytes < 128; i++) {
            int n = cLength(args[i], 128 - bytes);
            rest.append('\'').append(text(args[i], 0, n)).append("' ");
            bytes += n + 3;
        }
        return "ERR unknown command '" + text(args[0], 0, cLength(args[0], 128)) + "', with args beginning with: " + rest;
    }

    static String unknownSubcommand(byte[] sub, String container) {
        return "ERR unknown subcommand '" + text(sub, 0, cLength(sub, 128)) + "'. Try " + container + " HELP.";
    }

    /** @return Redis's error for a subcommand of {@code container} it does not know, or given the wrong number of arguments */
    static String subcommandSyntax(byte[] sub, String container) {
        return "ERR unknown subcommand or wrong number of arguments for '" + text(sub, 0, cLength(sub, 128)) + "'. Try "
                + container + " HELP.";
    }

    /**
     * How many of {@code b}'s bytes Redis's {@code %.*s} quotes in an error: up to the first NUL (it
     * formats arguments as C strings), and {@code max} at most.
     */
    private static int cLength(byte[] b, int max) {
        int n = Math.min(b.length, max);
        for (int i = 0; i < n; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return n;
    }

    /**
     * The error reply for a command that threw: clients branch on its first word, so it names a
     * Redis error class, never a Java one, and says what to do.
     *
     * <ul>
     *   <li>The map file could not grow (the disk is full, a quota, {@code ulimit -f}) or be mapped
     *       further: {@code OOM}, Redis's reply to a write refused at {@code maxmemory}. It means
     *       the same to a client (this write was refused for lack of room, reads go on, retrying
     *       at once will not help), and redis-py raises its {@code OutOfMemoryError} for it, where
     *       {@code MISCONF} (a failed RDB save) is a generic error there and speaks of snapshots.
     *       The map's message names the file and says what to free.
     *   <li>Damaged bytes in the map: {@code ERR corrupt ...} with the file, the offset and the
     *       repair command (the map's own message only sends the reader to {@code colossal verify}).
     *   <li>A {@link ReplyException} is a Redis error already; anything else (a bug) keeps its
     *       message under {@code ERR}.
     * </ul>
     */
    static String of(RuntimeException e) {
        return switch (e) {
            case ReplyException reply -> reply.getMessage();
            case UncheckedIOException full -> "OOM " + full.getMessage();
            case MapCorruptedException damage -> corrupt(damage);
            default -> "ERR " + (e.getMessage() != null ? e.getMessage() : "internal error (" + e.getClass().getSimpleName() + ")");
        };
    }

    /**
     * OOM for an EXPIRE, PERSIST or GETEX that found no room: a key's entry is written anew to
     * change its deadline (a crash then leaves the old one or the new one), and with a deadline
     * where it had none, 8 bytes longer. Redis accepts EXPIRE at maxmemory; here it needs disk.
     *
     * @param longer whether the key had no deadline and is given one
     */
    static String noRoomForExpiry(java.nio.file.Path file, UncheckedIOException full, boolean longer) {
        String why = full.getCause() != null && full.getCause().getMessage() != null ? full.getCause().getMessage() : "no room";
        return "OOM no room to " + (longer ? "add the expiry: the key is written anew with it, 8 bytes longer,"
                : "change the expiry: the key is written anew with it,") + " and map file=" + file + " could not grow ("
                + why + "); DEL or FLUSHALL free space at once (so does an EXPIRE in the past), or free disk space";
    }

    /** {@link #of} for damage: what is wrong where, and how to go on. */
    private static String corrupt(MapCorruptedException e) {
        return "ERR corrupt map file=" + e.file() + " offset=" + e.offset() + ": " + e.what()
                + "; stop the server and run 'colossal repair " + e.file() + "' (it drops the damaged entries and keeps "
                + "the rest), or restore the file from a copy";
    }

    /**
     * A client's bytes as text for an error line, which {@link #bytes} turns back into the same bytes:
     * Redis echoes what it was sent byte for byte (a Java-serialized argument in an unknown command's
     * error, say), where decoding to U+FFFD would change it. Valid UTF-8 is decoded; each byte of an
     * invalid sequence becomes the lone surrogate {@code U+DC00 + byte} (the escape of Python's
     * {@code surrogateescape}), which decoding UTF-8 never yields, so no decoded text is taken for one.
     */
    static String text(byte[] b) {
        return text(b, 0, b.length);
    }

    /** {@link #text(byte[])} of {@code len} bytes from {@code off}; a sequence cut at the end is escaped. */
    static String text(byte[] b, int off, int len) {
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder(); // reports malformed input by default
        ByteBuffer in = ByteBuffer.wrap(b, off, len);
        // A byte yields at most one char, and a 4-byte sequence two
        CharBuffer out = CharBuffer.allocate(len);
        for (CoderResult r = utf8.decode(in, out, true); !r.isUnderflow(); r = utf8.decode(in, out, true)) {
            for (int i = r.length(); i > 0; i--) {
                out.put((char) (ESCAPE | in.get() & 0xFF));
            }
        }
        utf8.flush(out);
        return out.flip().toString();
    }

    /** An error line's bytes: UTF-8, but for the bytes {@link #text} escaped, which are given back as they came. */
    static byte[] bytes(String line) {
        int i = 0;
        while (i < line.length() && !escaped(line, i)) {
            i++;
        }
        if (i == line.length()) {
            return line.getBytes(StandardCharsets.UTF_8);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(line.length() + 16);
        int run = 0;
        for (; i <= line.length(); i++) {
            if (i == line.length() || escaped(line, i)) {
                out.writeBytes(line.substring(run, i).getBytes(StandardCharsets.UTF_8));
                if (i < line.length()) {
                    out.write(line.charAt(i) & 0xFF);
                }
                run = i + 1;
            }
        }
        return out.toByteArray();
    }

    /** Whether the char at {@code i} escapes a byte: in U+DC80..U+DCFF and not the second half of a pair. */
    private static boolean escaped(String s, int i) {
        char c = s.charAt(i);
        return c >= (ESCAPE | 0x80) && c <= (ESCAPE | 0xFF) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)));
    }
}
