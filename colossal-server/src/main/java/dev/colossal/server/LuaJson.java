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
import org.luaj.vm2.lib.OneArgFunction;

/**
 * The {@code cjson} table Redis gives scripts: {@code encode}, {@code decode} and the
 * {@code null} sentinel, with Lua CJSON's rules as Redis ships them (a table whose keys are 1..n
 * is an array, sparse ones too unless more than half holes past 10 elements; numbers with 14
 * significant digits; nesting past 1,000 refused). Keys of an object come out in Lua's table
 * order, which is not Redis's.
 */
final class LuaJson {

    private static final int MAX_DEPTH = 1000;
    /** Decoded JSON null: a value no script can make otherwise, as Lua CJSON's lightuserdata. */
    static final LuaValue NULL = new LuaUserdata(new Object());

    private LuaJson() {
    }

    /** @param where gives Lua's {@code user_script:N: } prefix for errors */
    static LuaTable table(java.util.function.IntFunction<String> where) {
        LuaTable t = new LuaTable();
        t.rawset("encode", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                try {
                    encode(v, bytes, 0);
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
                    return new Decoder(RedisLib.bytes(s)).document();
                } catch (IllegalArgumentException e) {
                    throw new LuaError(LuaValue.valueOf(where.apply(1) + e.getMessage()));
                }
            }
        });
        t.rawset("null", NULL);
        return t;
    }

    private static void encode(LuaValue v, ByteArrayOutputStream out, int depth) {
        switch (v.type()) {
            case LuaValue.TNIL -> ascii(out, "null");
            case LuaValue.TBOOLEAN -> ascii(out, v.toboolean() ? "true" : "false");
            case LuaValue.TNUMBER -> ascii(out, number(v.todouble()));
            case LuaValue.TSTRING -> string(RedisLib.bytes(v.checkstring()), out);
            case LuaValue.TTABLE -> table((LuaTable) v, out, depth + 1);
            default -> {
                if (v == NULL) {
                    ascii(out, "null");
                } else {
                    throw new IllegalArgumentException("Cannot serialise " + v.typename() + ": type not supported");
                }
            }
        }
    }

    private static void table(LuaTable t, ByteArrayOutputStream out, int depth) {
        if (depth > MAX_DEPTH) {
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
        if (array && max > 10 && max > count * 2) {
            throw new IllegalArgumentException("Cannot serialise table: excessively sparse array");
        }
        if (array && max > 0) {
            out.write('[');
            for (int i = 1; i <= max; i++) {
                if (i > 1) {
                    out.write(',');
                }
                encode(t.rawget(i), out, depth);
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
                string(number(k.todouble()).getBytes(StandardCharsets.US_ASCII), out);
            } else {
                throw new IllegalArgumentException("Cannot serialise table: table key must be a number or string");
            }
            out.write(':');
            encode(t.rawget(k), out, depth);
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
     * C's {@code %.14g}, Lua CJSON's number format: 14 significant digits, trailing zeros dropped,
     * an exponent ({@code 1e+20}, {@code -1e-06}) below 1e-4 and from 1e14.
     */
    static String number(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("Cannot serialise number: must not be NaN or Inf");
        }
        return g(d, 14);
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
        private int at;
        private int depth;

        Decoder(byte[] s) {
            this.s = s;
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
            if (++depth > MAX_DEPTH) {
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
