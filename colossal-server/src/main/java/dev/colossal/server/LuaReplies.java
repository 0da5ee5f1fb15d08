package dev.colossal.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.colossal.memory.SegmentBytes;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

/**
 * A command's reply as the Lua value a script's {@code redis.call} returns, as Redis 7.0 converts
 * it (the other way, a script's result to the client's reply, is {@link LuaResult}). Under RESP2
 * (a script's default) a status is {@code {ok=s}}, an error {@code {err=s}}, an integer a number, a
 * bulk string a string, a null false and an array a table. Under RESP3 ({@code redis.setresp(3)})
 * also a null is nil, a boolean a boolean, a map {@code {map={k=v}}}, a set {@code {set={m=true}}},
 * a double {@code {double=n}}, a big number {@code {big_number=s}} and verbatim text {@code
 * {verbatim_string={format=f, string=s}}}; attributes are skipped.
 */
final class LuaReplies {

    static final LuaString OK = LuaValue.valueOf("ok");
    static final LuaString ERR = LuaValue.valueOf("err");

    private LuaReplies() {
    }

    /** A table {@code {err=text}}, the form of an error reply inside scripts. */
    static LuaTable errorTable(String text) {
        LuaTable t = new LuaTable();
        t.rawset(ERR, LuaValue.valueOf(text));
        return t;
    }

    /** Reads the one reply in {@code buf[0, len)}. */
    static LuaValue toLua(MemorySegment buf, int len) {
        int[] at = {0};
        return read(buf, at);
    }

    private static LuaValue read(MemorySegment buf, int[] at) {
        byte type = buf.get(JAVA_BYTE, at[0]++);
        switch (type) {
            case '+', '-' -> {
                LuaTable t = new LuaTable();
                t.rawset(type == '+' ? OK : ERR, LuaValue.valueOf(line(buf, at)));
                return t;
            }
            case ':' -> {
                return LuaValue.valueOf((double) Long.parseLong(ascii(line(buf, at))));
            }
            case '$' -> {
                int n = Integer.parseInt(ascii(line(buf, at)));
                if (n < 0) {
                    return LuaValue.FALSE;
                }
                return LuaValue.valueOf(payload(buf, at, n));
            }
            case '*' -> {
                int n = Integer.parseInt(ascii(line(buf, at)));
                if (n < 0) {
                    return LuaValue.FALSE;
                }
                LuaTable t = new LuaTable(n, 0);
                for (int i = 1; i <= n; i++) {
                    t.rawset(i, read(buf, at));
                }
                return t;
            }
            case '_' -> {
                line(buf, at);
                return LuaValue.NIL;
            }
            case '#' -> {
                return LuaValue.valueOf(line(buf, at)[0] == 't');
            }
            case ',' -> {
                return wrapped(DOUBLE, LuaValue.valueOf(double3(ascii(line(buf, at)))));
            }
            case '(' -> {
                return wrapped(BIG_NUMBER, LuaValue.valueOf(line(buf, at)));
            }
            case '=' -> {
                byte[] body = payload(buf, at, Integer.parseInt(ascii(line(buf, at))));
                LuaTable v = new LuaTable();
                v.rawset(FORMAT, LuaValue.valueOf(java.util.Arrays.copyOf(body, 3)));
                v.rawset(STRING, LuaValue.valueOf(java.util.Arrays.copyOfRange(body, 4, body.length)));
                return wrapped(VERBATIM, v);
            }
            case '%', '~' -> {
                int n = Integer.parseInt(ascii(line(buf, at)));
                LuaTable m = new LuaTable();
                for (int i = 0; i < n; i++) {
                    LuaValue k = read(buf, at);
                    m.rawset(k, type == '%' ? read(buf, at) : LuaValue.TRUE);
                }
                return wrapped(type == '%' ? MAP : SET, m);
            }
            case '|' -> {
                int n = Integer.parseInt(ascii(line(buf, at)));
                for (int i = 0; i < 2 * n; i++) {
                    read(buf, at);
                }
                return read(buf, at);
            }
            default -> throw new IllegalStateException("not a RESP reply type=" + (char) type + " at=" + (at[0] - 1));
        }
    }

    static final LuaString DOUBLE = LuaValue.valueOf("double");
    static final LuaString BIG_NUMBER = LuaValue.valueOf("big_number");
    static final LuaString VERBATIM = LuaValue.valueOf("verbatim_string");
    static final LuaString FORMAT = LuaValue.valueOf("format");
    static final LuaString STRING = LuaValue.valueOf("string");
    static final LuaString MAP = LuaValue.valueOf("map");
    static final LuaString SET = LuaValue.valueOf("set");

    /** A one-field table {@code {name=v}}, how scripts see RESP3's types that Lua has none for. */
    private static LuaTable wrapped(LuaString name, LuaValue v) {
        LuaTable t = new LuaTable();
        t.rawset(name, v);
        return t;
    }

    /** A RESP3 double's text as a number: Redis's {@code strtod} reads {@code inf}, {@code -inf} and {@code nan} too. */
    private static double double3(String s) {
        return switch (s) {
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            case "nan", "-nan" -> Double.NaN;
            default -> Double.parseDouble(s);
        };
    }

    private static String ascii(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    /** The {@code n} bytes at {@code at}, and the CRLF after them consumed. */
    private static byte[] payload(MemorySegment buf, int[] at, int n) {
        byte[] b = SegmentBytes.toArray(buf, at[0], n);
        at[0] += n + 2;
        return b;
    }

    /** The bytes up to the next CRLF, which is consumed. */
    private static byte[] line(MemorySegment buf, int[] at) {
        int start = at[0];
        int end = start;
        while (buf.get(JAVA_BYTE, end) != '\r') {
            end++;
        }
        at[0] = end + 2;
        return SegmentBytes.toArray(buf, start, end - start);
    }
}
