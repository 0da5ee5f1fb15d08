package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * Lua 5.1's {@code string.format} and {@code tostring} of numbers, which LuaJ 3.0.1 gets wrong
 * ({@code %5.2f} of 1.5 gave {@code 1.5}, {@code %10s} no padding, {@code tostring(1/3)}
 * {@code 0.33333334}): conversions as C's printf makes them, numbers as {@code %.14g}. Strings
 * are bytes throughout (ISO-8859-1 maps each to one char), so widths count bytes as C does.
 */
final class LuaFormat {

    private LuaFormat() {
    }

    /** {@code tostring}: numbers as Lua 5.1 prints them, anything else as LuaJ does. */
    static VarArgFunction tostring(LuaValue luajTostring) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                LuaValue v = a.arg1();
                return v.type() == LuaValue.TNUMBER ? LuaValue.valueOf(number(v.todouble())) : luajTostring.invoke(a);
            }
        };
    }

    /** A number as Lua 5.1's {@code tostring} writes it ({@code %.14g}; x86's {@code -nan}). */
    static String number(double d) {
        if (Double.isNaN(d)) {
            return "-nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        return LuaJson.g(d, 14);
    }

    /** @param where gives Lua's {@code user_script:N: } prefix for errors */
    static VarArgFunction format(java.util.function.IntFunction<String> where) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                try {
                    return LuaValue.valueOf(format(RedisLib.bytes(a.checkstring(1)), a));
                } catch (IllegalArgumentException e) {
                    throw new LuaError(LuaValue.valueOf(where.apply(1) + e.getMessage()));
                }
            }
        };
    }

    private static byte[] format(byte[] f, Varargs a) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 1;
        for (int i = 0; i < f.length; i++) {
            byte c = f[i];
            if (c != '%') {
                out.write(c);
                continue;
            }
            if (++i < f.length && f[i] == '%') {
                out.write('%');
                continue;
            }
            int start = i;
            while (i < f.length && "-+ #0".indexOf(f[i]) >= 0) {
                i++;
            }
            while (i < f.length && (Character.isDigit(f[i]) || f[i] == '.')) {
                i++;
            }
            if (i >= f.length) {
                throw new IllegalArgumentException("invalid option '%' to 'format'");
            }
            String spec = new String(f, start, i - start, StandardCharsets.ISO_8859_1);
            char conversion = (char) f[i];
            arg++;
            String text = switch (conversion) {
                case 'd', 'i' -> String.format("%" + withoutPrecision(spec) + "d", (long) a.checkdouble(arg));
                case 'u' -> String.format("%" + withoutPrecision(spec) + "d", (long) a.checkdouble(arg));
                case 'c' -> String.valueOf((char) (a.checkint(arg) & 0xff));
                case 'x', 'X', 'o' -> String.format("%" + withoutPrecision(spec) + conversion, (long) a.checkdouble(arg));
                case 'e', 'E' -> String.format("%" + spec + conversion, a.checkdouble(arg));
                case 'f' -> pad(spec, fixed(spec, a.checkdouble(arg)));
                case 'g', 'G' -> pad(spec, g(spec, a.checkdouble(arg), conversion == 'G'));
                case 's' -> String.format("%" + spec + "s", latin1(stringOf(a.arg(arg))));
                case 'q' -> quoted(RedisLib.bytes(a.checkstring(arg)));
                default -> throw new IllegalArgumentException("invalid option '%" + conversion + "' to 'format'");
            };
            out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
        }
        return out.toByteArray();
    }

    private static LuaString stringOf(LuaValue v) {
        if (v.type() == LuaValue.TNUMBER) {
            return LuaValue.valueOf(number(v.todouble()));
        }
        return v.checkstring();
    }

    private static String latin1(LuaString s) {
        return new String(s.m_bytes, s.m_offset, s.m_length, StandardCharsets.ISO_8859_1);
    }

    /** Java refuses a precision for integers, where C pads digits with it: rare enough to drop. */
    private static String withoutPrecision(String spec) {
        int dot = spec.indexOf('.');
        return dot < 0 ? spec : spec.substring(0, dot);
    }

    /** C's %g (Java's %g keeps trailing zeros and switches to exponents elsewhere). */
    private static String g(String spec, double d, boolean upper) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            String s = number(d);
            return upper ? s.toUpperCase(java.util.Locale.ROOT) : s;
        }
        int dot = spec.indexOf('.');
        int precision = dot < 0 ? 6 : Math.max(1, dot + 1 < spec.length() ? Integer.parseInt(spec.substring(dot + 1)) : 0);
        String s = LuaJson.g(d, precision);
        if (spec.indexOf('+') >= 0 && d >= 0) {
            s = "+" + s;
        } else if (spec.indexOf(' ') >= 0 && d >= 0) {
            s = " " + s;
        }
        return upper ? s.toUpperCase(java.util.Locale.ROOT) : s;
    }

    /**
     * C's %f: the double's exact binary value rounded half to even (Java's %f rounds half up:
     * {@code %.0f} of 2.5 gave 3, where C gives 2).
     */
    private static String fixed(String spec, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return number(d);
        }
        int dot = spec.indexOf('.');
        int precision = dot < 0 ? 6 : dot + 1 < spec.length() ? Integer.parseInt(spec.substring(dot + 1)) : 0;
        String s = new java.math.BigDecimal(d).setScale(precision, java.math.RoundingMode.HALF_EVEN).toPlainString();
        if (d < 0 && !s.startsWith("-") || d == 0 && 1 / d < 0) {
            s = "-" + s; // C keeps the sign of a negative number rounded to zero
        }
        if (spec.indexOf('#') >= 0 && precision == 0) {
            s += ".";
        }
        if (spec.indexOf('+') >= 0 && !s.startsWith("-")) {
            s = "+" + s;
        } else if (spec.indexOf(' ') >= 0 && !s.startsWith("-")) {
            s = " " + s;
        }
        return s;
    }

    /** Pads {@code s} to the spec's width, left-justified with {@code -}, with zeros with {@code 0}. */
    private static String pad(String spec, String s) {
        int f = 0;
        while (f < spec.length() && "-+ #0".indexOf(spec.charAt(f)) >= 0) {
            f++;
        }
        String flags = spec.substring(0, f);
        int dot = spec.indexOf('.');
        String w = spec.substring(f, dot < 0 ? spec.length() : dot);
        int width = w.isEmpty() ? 0 : Integer.parseInt(w);
        if (s.length() >= width) {
            return s;
        }
        String fill = (flags.indexOf('0') >= 0 && flags.indexOf('-') < 0 ? "0" : " ").repeat(width - s.length());
        if (flags.indexOf('-') >= 0) {
            return s + fill;
        }
        if (fill.startsWith("0") && (s.startsWith("-") || s.startsWith("+"))) {
            return s.charAt(0) + fill + s.substring(1);
        }
        return fill + s;
    }

    /** Lua 5.1's %q: in double quotes, with quotes, backslashes, newlines, CR and NUL escaped. */
    private static String quoted(byte[] s) {
        StringBuilder b = new StringBuilder("\"");
        for (byte c : s) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\\n");
                case '\r' -> b.append("\\r");
                case 0 -> b.append("\\000");
                default -> b.append((char) (c & 0xff));
            }
        }
        return b.append('"').toString();
    }
}
