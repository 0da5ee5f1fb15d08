package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code cjson} table Redis gives scripts: {@code encode}, {@code decode}, the {@code null}
 * sentinel and Lua CJSON's settings functions, with Lua CJSON's rules as Redis ships them (a table
 * whose keys are 1..n is an array, sparse ones too unless more than half holes past 10 elements;
 * numbers with 14 significant digits; nesting past 1,000 refused; each of these a setting). Keys of
 * an object come out in Lua's table order, which is not Redis's.
 */
final class LuaJson {

    /** Decoded JSON null: a value no script can make otherwise, as Lua CJSON's lightuserdata. */
    static final LuaValue NULL = new LuaUserdata(new Object());

    /**
     * Lua CJSON's settings, one set per Lua state as Lua CJSON keeps them: a script's
     * {@code cjson.encode_max_depth(1)} holds for the scripts after it until one sets it back.
     */
    private static final class Settings {
        int encodeMaxDepth = 1000;
        int decodeMaxDepth = 1000;
        int precision = 14;
        boolean keepBuffer = true;
        /** encode_invalid_numbers: false (refused), true (written as nan, inf) or "null". */
        LuaValue invalidNumbers = LuaValue.FALSE;
        boolean decodeInvalidNumbers = true;
        boolean sparseConvert;
        int sparseRatio = 2;
        int sparseSafe = 10;
    }

    private LuaJson() {
    }

    /** @param where gives Lua's {@code user_script:N: } prefix for errors */
    static LuaTable table(java.util.function.IntFunction<String> where) {
        Settings set = new Settings();
        LuaTable t = new LuaTable();
        t.rawset("encode", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                try {
                    encode(v, bytes, 0, set);
                } catch (IllegalArgumentException e) {
                    throw new LuaError(LuaValue.valueOf(where.apply(1) + e.getMessage()));
                }
                return LuaValue.valueOf(bytes.toByteArray());
            }
        });
        t.rawset("decode", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                LuaString s = v.checkstring();
                try {
                    return new Decoder(RedisLib.bytes(s), set.decodeMaxDepth).document();
                } catch (IllegalArgumentException e) {
                    throw new LuaError(LuaValue.valueOf(where.apply(1) + e.getMessage()));
                }
            }
        });
        t.rawset("null", NULL);
        settings(t, set);
        return t;
    }

    /**
     * Lua CJSON's settings functions: each sets its setting when given a value (checked as Lua
     * CJSON checks it) and returns the setting as it then is.
     */
    private static void settings(LuaTable t, Settings set) {
        t.rawset("encode_max_depth", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                set.encodeMaxDepth = intArg(a, 1, 1, Integer.MAX_VALUE, set.encodeMaxDepth);
                return LuaValue.valueOf(set.encodeMaxDepth);
            }
        });
        t.rawset("decode_max_depth", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                set.decodeMaxDepth = intArg(a, 1, 1, Integer.MAX_VALUE, set.decodeMaxDepth);
                return LuaValue.valueOf(set.decodeMaxDepth);
            }
        });
        t.rawset("encode_number_precision", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                set.precision = intArg(a, 1, 1, 14, set.precision);
                return LuaValue.valueOf(set.precision);
            }
        });
        t.rawset("encode_keep_buffer", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                // Lua CJSON's reuse of its buffer between calls: nothing to keep here
                set.keepBuffer = a.isnoneornil(1) ? set.keepBuffer : a.checkboolean(1);
                return LuaValue.valueOf(set.keepBuffer);
            }
        });
        t.rawset("encode_invalid_numbers", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                LuaValue v = a.arg1();
                if (v.isstring() && !v.isnumber() && v.tojstring().equals("null")) {
                    set.invalidNumbers = LuaValue.valueOf("null");
                } else if (!v.isnil()) {
                    set.invalidNumbers = LuaValue.valueOf(a.checkboolean(1));
                }
                return set.invalidNumbers;
            }
        });
        t.rawset("decode_invalid_numbers", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                set.decodeInvalidNumbers = a.isnoneornil(1) ? set.decodeInvalidNumbers : a.checkboolean(1);
                return LuaValue.valueOf(set.decodeInvalidNumbers);
            }
        });
        t.rawset("encode_sparse_array", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                set.sparseConvert = a.isnoneornil(1) ? set.sparseConvert : a.checkboolean(1);
                set.sparseRatio = intArg(a, 2, 0, Integer.MAX_VALUE, set.sparseRatio);
                set.sparseSafe = intArg(a, 3, 0, Integer.MAX_VALUE, set.sparseSafe);
                return LuaValue.varargsOf(new LuaValue[] {LuaValue.valueOf(set.sparseConvert),
                    LuaValue.valueOf(set.sparseRatio), LuaValue.valueOf(set.sparseSafe)});
            }
        });
    }

    /** @return argument {@code i}, an integer from {@code min} to {@code max}, or {@code current} if it is absent */
    private static int intArg(Varargs a, int i, int min, int max, int current) {
        if (a.isnoneornil(i)) {
            return current;
        }
        int v = a.checkint(i);
        if (v < min || v > max) {
            LuaValue.argerror(i, "expected integer between " + min + " and " + max);
        }
        return v;
    }

    private static void encode(LuaValue v, ByteArrayOutputStream out, int depth, Settings set) {
        switch (v.type()) {
            case LuaValue.TNIL -> ascii(out, "null");
            case LuaValue.TBOOLEAN -> ascii(out, v.toboolean() ? "true" : "false");
            case LuaValue.TNUMBER -> ascii(out, number(v.todouble(), set));
            case LuaValue.TSTRING -> string(RedisLib.bytes(v.checkstring()), out);
            case LuaValue.TTABLE -> table((LuaTable) v, out, depth + 1, set);
            default -> {
                if (v == NULL) {
                    ascii(out, "null");
                } else {
                    throw new IllegalArgumentException("Cannot serialise " + v.typename() + ": type not supported");
                }
            }
        }
    }

    private static void table(LuaTable t, ByteArrayOutputStream out, int depth, Settings set) {
        if (depth > set.encodeMaxDepth) {
            throw new IllegalArgumentException("Cannot serialise, excessive nesting (" + depth + ")");
        }
        int max = 0;
        int count = 0;
        boolean array = true;
        LuaValue[] keys = t.keys();
        for (LuaValue k : keys) {
            double d = k.type() == LuaValue.TNUMBER ? k.todouble() : 0;
            if (d >= 1 && d == Math.floor(d) && d <= Integer.MAX_VALUE) {
                max = Math.max(max, (int) d);
                count++;
            } else {
                array = false;
            }
        }
        if (array && set.sparseRatio > 0 && max > set.sparseSafe && max > (long) count * set.sparseRatio) {
            if (!set.sparseConvert) {
                throw new IllegalArgumentException("Cannot serialise table: excessively sparse array");
            }
            array = false; // written as an object, its keys as strings
        }
        if (array && max > 0) {
            out.write('[');
            for (int i = 1; i <= max; i++) {
                if (i > 1) {
                    out.write(',');
                }
                encode(t.rawget(i), out, depth, set);
            }
            out.write(']');
            return;
        }
        out.write('{');
        boolean first = true;
        for (LuaValue k : keys) {
            if (!first) {
                out.write(',');
            }
            first = false;
            if (k.type() == LuaValue.TSTRING) {
                string(RedisLib.bytes(k.checkstring()), out);
            } else if (k.type() == LuaValue.TNUMBER) {
                string(number(k.todouble(), set).getBytes(StandardCharsets.US_ASCII), out);
            } else {
                throw new IllegalArgumentException("Cannot serialise table: table key must be a number or string");
            }
            out.write(':');
            encode(t.rawget(k), out, depth, set);
        }
        out.write('}');
    }

    private static void string(byte[] s, ByteArrayOutputStream out) {
        out.write('"');
        for (byte b : s) {
            switch (b) {
                case '"' -> ascii(out, "\\\"");
                case '\\' -> ascii(out, "\\\\");
                case '/' -> ascii(out, "\\/");
                case '\b' -> ascii(out, "\\b");
                case '\f' -> ascii(out, "\\f");
                case '\n' -> ascii(out, "\\n");
                case '\r' -> ascii(out, "\\r");
                case '\t' -> ascii(out, "\\t");
                default -> {
                    if (b >= 0 && b < 0x20 || b == 0x7f) {
                        ascii(out, String.format("\\u%04x", b));
                    } else {
                        out.write(b);
                    }
                }
            }
        }
        out.write('"');
    }

    private static void ascii(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * C's {@code %.14g} (or the precision set), Lua CJSON's number format: 14 significant digits,
     * trailing zeros dropped, an exponent ({@code 1e+20}, {@code -1e-06}) below 1e-4 and from 1e14.
     * NaN and the infinities as encode_invalid_numbers says.
     */
    private static String number(double d, Settings set) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            if (set.invalidNumbers.isstring()) {
                return "null";
            }
            if (!set.invalidNumbers.toboolean()) {
                throw new IllegalArgumentException("Cannot serialise number: must not be NaN or Inf");
            }
            return Double.isNaN(d) ? "nan" : d > 0 ? "inf" : "-inf";
        }
        return g(d, set.precision);
    }

    /** C's {@code %.<digits>g} of a finite {@code d}. */
    static String g(double d, int digits) {
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        // the double's exact value, a tie to the even digit: what C's printf does (186921531801345 is 1.8692153180134e+14)
        BigDecimal v = new BigDecimal(d).round(new MathContext(digits, java.math.RoundingMode.HALF_EVEN));
        int exponent = v.precision() - v.scale() - 1;
        if (exponent < -4 || exponent >= digits) {
            BigDecimal mantissa = v.movePointLeft(exponent).stripTrailingZeros();
            return mantissa.toPlainString() + (exponent < 0 ? "e-" : "e+")
                    + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
        }
        return v.stripTrailingZeros().toPlainString();
    }

    /** A JSON text to Lua values: objects and arrays become tables, null {@link #NULL}. */
    private static final class Decoder {
        private final byte[] s;
        private final int maxDepth;
        private int at;
        private int depth;

        Decoder(byte[] s, int maxDepth) {
            this.s = s;
            this.maxDepth = maxDepth;
        }

        LuaValue document() {
            LuaValue v = value();
            space();
            if (at < s.length) {
                throw fail("the end");
            }
            return v;
        }

        private LuaValue value() {
            space();
            if (at >= s.length) {
                throw fail("a value");
            }
            byte c = s[at];
            switch (c) {
                case '{' -> {
                    return object();
                }
                case '[' -> {
                    return array();
                }
                case '"' -> {
                    return LuaValue.valueOf(string());
                }
                case 't' -> {
                    return literal("true", LuaValue.TRUE);
                }
                case 'f' -> {
                    return literal("false", LuaValue.FALSE);
                }
                case 'n' -> {
                    return literal("null", NULL);
                }
                default -> {
                    return number();
                }
            }
        }

        private LuaValue object() {
            LuaTable t = new LuaTable();
            if (opened('}')) {
                do {
                    space();
                    if (at >= s.length || s[at] != '"') {
                        throw fail("object key string");
                    }
                    LuaString key = LuaValue.valueOf(string());
                    space();
                    expect(':', "colon");
                    t.rawset(key, value());
                } while (more('}', "comma or object end"));
            }
            return t;
        }

        private LuaValue array() {
            LuaTable t = new LuaTable();
            if (opened(']')) {
                int i = 1;
                do {
                    t.rawset(i++, value());
                } while (more(']', "comma or array end"));
            }
            return t;
        }

        /** Enters an object or array: @return false if it closes at once (empty) */
        private boolean opened(char close) {
            nest();
            at++;
            space();
            if (at < s.length && s[at] == close) {
                at++;
                depth--;
                return false;
            }
            return true;
        }

        /** After an element: @return true after a comma, false after the closing {@code close} */
        private boolean more(char close, String expected) {
            space();
            if (at < s.length && s[at] == ',') {
                at++;
                return true;
            }
            expect(close, expected);
            depth--;
            return false;
        }

        private void nest() {
            if (++depth > maxDepth) {
                throw new IllegalArgumentException("Found too many nested data structures (" + depth
                        + ") at character " + (at + 1));
            }
        }

        private byte[] string() {
            at++;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                if (at >= s.length) {
                    throw fail("string end");
                }
                byte c = s[at++];
                if (c == '"') {
                    return out.toByteArray();
                }
                if (c != '\\') {
                    out.write(c);
                    continue;
                }
                if (at >= s.length) {
                    throw fail("escape");
                }
                byte e = s[at++];
                switch (e) {
                    case '"', '\\', '/' -> out.write(e);
                    case 'b' -> out.write('\b');
                    case 'f' -> out.write('\f');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 't' -> out.write('\t');
                    case 'u' -> {
                        int cp = hex4();
                        if (cp >= 0xD800 && cp < 0xDC00 && at + 1 < s.length && s[at] == '\\' && s[at + 1] == 'u') {
                            at += 2;
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4() - 0xDC00);
                        }
                        out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                    }
                    default -> throw fail("a valid escape");
                }
            }
        }

        private int hex4() {
            if (at + 4 > s.length) {
                throw fail("4 hex digits");
            }
            try {
                int v = Integer.parseInt(new String(s, at, 4, StandardCharsets.US_ASCII), 16);
                at += 4;
                return v;
            } catch (NumberFormatException e) {
                throw fail("4 hex digits");
            }
        }

        private LuaValue number() {
            int start = at;
            while (at < s.length && "+-0123456789.eE".indexOf(s[at]) >= 0) {
                at++;
            }
            try {
                return LuaValue.valueOf(Double.parseDouble(new String(s, start, at - start, StandardCharsets.US_ASCII)));
            } catch (NumberFormatException e) {
                at = start;
                throw fail("a value");
            }
        }

        private LuaValue literal(String word, LuaValue v) {
            byte[] w = word.getBytes(StandardCharsets.US_ASCII);
            if (at + w.length > s.length || !java.util.Arrays.equals(s, at, at + w.length, w, 0, w.length)) {
                throw fail("a value");
            }
            at += w.length;
            return v;
        }

        private void expect(char c, String what) {
            if (at >= s.length || s[at] != c) {
                throw fail(what);
            }
            at++;
        }

        private void space() {
            while (at < s.length && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r')) {
                at++;
            }
        }

        private IllegalArgumentException fail(String expected) {
            String found = at >= s.length ? "T_END" : "'" + (char) s[at] + "'";
            return new IllegalArgumentException("Expected " + expected + " but found " + found + " at character " + (at + 1));
        }
    }
}
