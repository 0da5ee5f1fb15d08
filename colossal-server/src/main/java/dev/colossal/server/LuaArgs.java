package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.util.function.IntFunction;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * Arguments of the C libraries Redis bundles ({@link LuaStruct}, {@link LuaMsgPack}) read as Lua
 * 5.1's {@code luaL_check*} reads them, with its error texts ({@code bad argument #2 to 'pack'
 * (number expected, got nil)}), which LuaJ words its own way. Numbers become strings as Lua 5.1
 * writes them ({@code %.14g}), numeric strings numbers, and a number becomes an integer as C's
 * cast does on x86-64.
 */
final class LuaArgs {

    private static final double TWO_63 = 0x1p63;

    private final IntFunction<String> where;
    private final String function;

    /**
     * @param where    gives Lua's {@code user_script:N: } prefix for errors
     * @param function the name errors give the function, as Lua names a library field called
     */
    LuaArgs(IntFunction<String> where, String function) {
        this.where = where;
        this.function = function;
    }

    /** @return {@code luaL_error}'s error: the message after the caller's position */
    LuaError error(String message) {
        return new LuaError(LuaValue.valueOf((where.apply(1) + message).getBytes(StandardCharsets.ISO_8859_1)));
    }

    /** @return {@code luaL_argerror}'s error for argument {@code n} */
    LuaError argError(int n, String message) {
        return error("bad argument #" + n + " to '" + function + "' (" + message + ")");
    }

    private LuaError typeError(Varargs a, int n, String expected) {
        return argError(n, expected + " expected, got " + (n > a.narg() ? "no value" : a.arg(n).typename()));
    }

    /** {@code luaL_checknumber}: a number, or a string that reads as one ({@link #toNumber}). */
    double number(Varargs a, int n) {
        LuaValue v = a.arg(n);
        if (v.type() == LuaValue.TNUMBER) {
            return v.todouble();
        }
        Double d = v.type() == LuaValue.TSTRING ? toNumber(RedisLib.bytes((LuaString) v)) : null;
        if (d == null) {
            throw typeError(a, n, "number");
        }
        return d;
    }

    /**
     * A string read as a number the way Lua 5.1 reads one, with C's {@code strtod}: up to its first
     * NUL, spaces around, decimal or hexadecimal (with an optional binary exponent), {@code inf},
     * {@code infinity} and {@code nan} in any case. (LuaJ's own reading takes neither hex floats
     * nor infinities, and fails with an exception on {@code "0x"}.)
     *
     * @return the number, or null if the string is not one
     */
    static Double toNumber(byte[] s) {
        int end = 0;
        while (end < s.length && s[end] != 0) {
            end++;
        }
        java.util.regex.Matcher m = C_NUMBER.matcher(new String(s, 0, end, StandardCharsets.ISO_8859_1));
        if (!m.matches()) {
            return null;
        }
        String sign = m.group(1) == null ? "" : m.group(1);
        String body = m.group(2);
        if (body.regionMatches(true, 0, "inf", 0, 3)) {
            return sign.equals("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (body.regionMatches(true, 0, "nan", 0, 3)) {
            return Double.NaN;
        }
        boolean hex = body.length() > 1 && (body.charAt(1) == 'x' || body.charAt(1) == 'X');
        boolean exponent = body.indexOf('p') >= 0 || body.indexOf('P') >= 0;
        return Double.parseDouble(sign + body + (hex && !exponent ? "p0" : ""));
    }

    /** What strtod reads whole, between C's spaces: a sign, then a hex float, a decimal, inf or nan. */
    private static final java.util.regex.Pattern C_NUMBER = java.util.regex.Pattern.compile(
            "[ \\t\\n\\x0B\\f\\r]*([+-])?("
            + "0[xX](?:[0-9a-fA-F]+(?:\\.[0-9a-fA-F]*)?|\\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
            + "|(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
            + "|(?i:infinity|inf|nan(?:\\([0-9a-zA-Z_]*\\))?))[ \\t\\n\\x0B\\f\\r]*");

    /** {@code luaL_checkinteger}: {@link #number}, cut to a 64-bit integer as C casts it. */
    long integer(Varargs a, int n) {
        return toLong(number(a, n));
    }

    /** {@code luaL_optinteger}: {@code otherwise} for an absent or nil argument. */
    long optInteger(Varargs a, int n, long otherwise) {
        return a.isnoneornil(n) ? otherwise : integer(a, n);
    }

    /** {@code luaL_checklstring}: a string's bytes, or a number as Lua 5.1 writes it. */
    byte[] string(Varargs a, int n) {
        LuaValue v = a.arg(n);
        if (v.type() == LuaValue.TNUMBER) {
            return LuaFormat.number(v.todouble()).getBytes(StandardCharsets.ISO_8859_1);
        }
        if (v.type() != LuaValue.TSTRING) {
            throw typeError(a, n, "string");
        }
        return RedisLib.bytes((LuaString) v);
    }

    /**
     * A double cast to {@code int64_t} as x86-64 does it (cvttsd2si): truncated, and the
     * "integer indefinite" {@code Long.MIN_VALUE} for NaN or anything out of range, where Java's
     * cast saturates.
     */
    static long toLong(double d) {
        return d >= -TWO_63 && d < TWO_63 ? (long) d : Long.MIN_VALUE;
    }

    /**
     * A double cast to {@code uint64_t} as GCC compiles it on x86-64: below 2^63 as {@link #toLong};
     * from 2^63 the cast of {@code d - 2^63} with its top bit flipped, so 2^64 and above (and
     * infinity) come out 0.
     */
    static long toUnsignedLong(double d) {
        return d >= TWO_63 ? toLong(d - TWO_63) ^ Long.MIN_VALUE : toLong(d);
    }

    /**
     * The bits of a double as Redis's Lua would hold them. A NaN is x86's default NaN, sign bit
     * set, which is what 0/0 makes there; LuaJ's 0/0 is Java's NaN, sign clear. ({@link
     * LuaFormat#number} prints every NaN as {@code -nan} for the same reason.)
     */
    static long bits(double d) {
        return Double.isNaN(d) ? 0xfff8000000000000L : Double.doubleToRawLongBits(d);
    }

    /** A {@code uint64_t} converted to a double, rounded as C converts it. */
    static double unsignedToDouble(long u) {
        return u >= 0 ? u : ((double) (u >>> 1 | (u & 1))) * 2;
    }
}
