package dev.colossal.server;

import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * How the Lua debugger ({@link LuaDebugger}) shows values, in the forms redis-cli users know
 * from Redis's: a string quoted with C escapes ({@code "a\"b\n\x00"}), a number as C's {@code %g}
 * writes it ({@code 9.0072e+15}), a sequence {@code {1; "two"}}, any other table
 * {@code {["a"]=1; [3]="z"}} (LuaJ's order of a table's hashed keys is not Lua 5.1's), a function
 * {@code "function@0x..."}; and a command's RESP reply as {@code "+OK"}, {@code 3}, {@code NULL},
 * {@code ["a","b"]}.
 */
final class LuaRepr {

    private LuaRepr() {
    }

    /** @return {@code v} as the debugger prints it */
    static String of(LuaValue v) {
        StringBuilder sb = new StringBuilder();
        append(sb, v, 0);
        return sb.toString();
    }

    /** @return each of {@code values} as {@link #of}, joined by {@code ", "}: redis.debug()'s line */
    static String all(Varargs values) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= values.narg(); i++) {
            if (i > 1) {
                sb.append(", ");
            }
            append(sb, values.arg(i), 0);
        }
        return sb.toString();
    }

    /** Tables nested deeper than this are cut short: a table that holds itself would never end. */
    private static final int MAX_NESTING = 64;

    private static void append(StringBuilder sb, LuaValue v, int nesting) {
        switch (v.type()) {
            case LuaValue.TNIL -> sb.append("nil");
            case LuaValue.TBOOLEAN -> sb.append(v.toboolean());
            case LuaValue.TNUMBER -> sb.append(number(v.todouble()));
            case LuaValue.TSTRING -> quoted(sb, RedisLib.bytes(v.strvalue()), 0, -1);
            case LuaValue.TTABLE -> table(sb, (LuaTable) v, nesting);
            default -> sb.append('"').append(v.typename()).append("@0x")
                    .append(Long.toHexString(System.identityHashCode(v))).append('"');
        }
    }

    private static void table(StringBuilder sb, LuaTable t, int nesting) {
        if (nesting >= MAX_NESTING) {
            sb.append("{...}");
            return;
        }
        boolean sequence = true;
        long expected = 1;
        for (LuaValue k = t.next(LuaValue.NIL).arg1(); !k.isnil(); k = t.next(k).arg1()) {
            if (!k.isnumber() || k.todouble() != expected++) {
                sequence = false;
                break;
            }
        }
        sb.append('{');
        boolean first = true;
        for (Varargs e = t.next(LuaValue.NIL); !e.arg1().isnil(); e = t.next(e.arg1())) {
            if (!first) {
                sb.append("; ");
            }
            first = false;
            if (!sequence) {
                sb.append('[');
                append(sb, e.arg1(), nesting + 1);
                sb.append("]=");
            }
            append(sb, e.arg(2), nesting + 1);
        }
        sb.append('}');
    }

    /**
     * C's {@code %g}: six significant digits, trailing zeros dropped, exponent form below 1e-4 and
     * from 1e6 on ({@code 1e+20}, {@code 9.0072e+15}), {@code inf}, {@code -nan} as x86 makes NaN.
     */
    static String number(double d) {
        if (Double.isNaN(d)) {
            return "-nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        BigDecimal six = new BigDecimal(d).round(new MathContext(6));
        int exponent = six.precision() - six.scale() - 1;
        if (exponent < -4 || exponent >= 6) {
            BigDecimal mantissa = six.movePointLeft(exponent).stripTrailingZeros();
            String e = Integer.toString(Math.abs(exponent));
            return mantissa.toPlainString() + (exponent < 0 ? "e-" : "e+") + (e.length() < 2 ? "0" + e : e);
        }
        return six.stripTrailingZeros().toPlainString();
    }

    /**
     * Appends {@code bytes[from, to)} ({@code to} -1: to the end) in double quotes, with C's escapes
     * for quote, backslash and control characters and {@code \xHH} for any byte not printable ASCII.
     */
    static void quoted(StringBuilder sb, byte[] bytes, int from, int to) {
        int end = to < 0 ? bytes.length : to;
        sb.append('"');
        for (int i = from; i < end; i++) {
            int b = bytes[i] & 0xff;
            switch (b) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case 7 -> sb.append("\\a");
                case '\b' -> sb.append("\\b");
                default -> {
                    if (b >= 0x20 && b < 0x7f) {
                        sb.append((char) b);
                    } else {
                        sb.append("\\x").append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 15, 16));
                    }
                }
            }
        }
        sb.append('"');
    }

    /**
     * @return the RESP reply in {@code resp} as the debugger logs it: a status or error line quoted
     *     with its {@code +} or {@code -}, a bulk string quoted, an integer bare, a null {@code NULL},
     *     an array {@code [a,b]} (RESP3's map and set as arrays of their elements, a double bare)
     */
    static String reply(byte[] resp) {
        StringBuilder sb = new StringBuilder();
        reply(sb, resp, new int[] {0});
        return sb.toString();
    }

    private static void reply(StringBuilder sb, byte[] resp, int[] at) {
        int start = at[0];
        int eol = start;
        while (eol + 1 < resp.length && !(resp[eol] == '\r' && resp[eol + 1] == '\n')) {
            eol++;
        }
        char type = (char) resp[start];
        String head = new String(resp, start + 1, eol - start - 1, StandardCharsets.UTF_8);
        at[0] = eol + 2;
        switch (type) {
            case '+', '-' -> quoted(sb, resp, start, eol);
            case ':', ',', '(' -> sb.append(head);
            case '_' -> sb.append("NULL");
            case '#' -> sb.append(head.equals("t") ? "true" : "false");
            case '$', '=', '!' -> {
                int n = Integer.parseInt(head);
                if (n < 0) {
                    sb.append("NULL");
                } else {
                    quoted(sb, resp, at[0], at[0] + n);
                    at[0] += n + 2;
                }
            }
            case '*', '~', '%', '>' -> {
                int n = Integer.parseInt(head);
                if (n < 0) {
                    sb.append("NULL");
                    return;
                }
                int elements = type == '%' ? 2 * n : n;
                sb.append('[');
                for (int i = 0; i < elements; i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    reply(sb, resp, at);
                }
                sb.append(']');
            }
            default -> sb.append(head);
        }
    }
}
