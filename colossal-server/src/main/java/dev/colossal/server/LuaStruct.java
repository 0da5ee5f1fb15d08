package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code struct} table Redis gives scripts (Roberto Ierusalimschy's struct library for Lua
 * 5.1): {@code pack(fmt, ...)}, {@code unpack(fmt, s [, pos])} and {@code size(fmt)}, with the
 * sizes and quirks of the x86-64 build Redis ships, observed on redis-server 7.0:
 *
 * <ul>
 *   <li>{@code > < !n} and {@code ' '} control the byte order (little by default), the alignment
 *       (1 by default, {@code !} alone 8); {@code x} is a zero byte; {@code b h l T i f d} are 1,
 *       2, 8, 8, 4, 4 and 8 bytes, upper case unsigned; {@code in} is n bytes (up to 32);
 *       {@code cn} n bytes of a string ({@code c0}: all of it packing, the number before it
 *       unpacking); {@code s} a NUL-terminated string. The format ends at its first NUL byte.</li>
 *   <li>An integer is packed from C's cast of the Lua number to 64 bits (NaN and out-of-range
 *       values give {@code 0x8000000000000000}, or 0 at 2^64 and above), so bytes past the eighth
 *       are zero even for a negative number; unpacking keeps the low 64 bits, as a double.</li>
 *   <li>Alignment pads an item to a multiple of {@code min(its size, !n)}, even when that is not a
 *       power of two ({@code !8 i3}); {@code c} and {@code s} never align.</li>
 *   <li>{@code size} ignores unknown letters (they are 0 bytes); pack and unpack refuse them.</li>
 * </ul>
 */
final class LuaStruct {

    private static final int MAX_INT_SIZE = 32;
    private static final int MAX_ALIGN = 8;
    /** Lua 5.1's bound on a C function's stack (LUAI_MAXCSTACK), which unpack's results count against. */
    private static final int MAX_STACK_SLOTS = 8000;

    private LuaStruct() {
    }

    /** @param where gives Lua's {@code user_script:N: } prefix for errors */
    static LuaTable table(IntFunction<String> where) {
        LuaTable t = new LuaTable();
        LuaArgs packArgs = new LuaArgs(where, "pack");
        LuaArgs unpackArgs = new LuaArgs(where, "unpack");
        LuaArgs sizeArgs = new LuaArgs(where, "size");
        t.rawset("pack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaValue.valueOf(pack(packArgs, a));
            }
        });
        t.rawset("unpack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return unpack(unpackArgs, a);
            }
        });
        t.rawset("size", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaValue.valueOf((double) size(sizeArgs, a));
            }
        });
        return t;
    }

    /** A format being read: where in it, and the byte order and alignment its options set so far. */
    private static final class Format {
        final LuaArgs args;
        final byte[] text;
        int at;
        boolean bigEndian;
        int align = 1;

        Format(LuaArgs args, byte[] fmt) {
            this.args = args;
            int end = 0;
            while (end < fmt.length && fmt[end] != 0) { // a C string: the first NUL ends it
                end++;
            }
            this.text = Arrays.copyOf(fmt, end);
        }

        boolean more() {
            return at < text.length;
        }

        char next() {
            return (char) (text[at++] & 0xFF);
        }

        /** @return the number written after the option, or {@code otherwise} if none is */
        int number(int otherwise) {
            if (!more() || !isDigit(text[at])) {
                return otherwise;
            }
            int n = 0;
            while (more() && isDigit(text[at])) {
                int digit = text[at++] - '0';
                if (n > Integer.MAX_VALUE / 10 || n * 10 > Integer.MAX_VALUE - digit) {
                    throw args.error("integral size overflow");
                }
                n = n * 10 + digit;
            }
            return n;
        }

        /** @return the bytes option {@code opt} takes, 0 for the options that take none */
        long size(char opt) {
            return switch (opt) {
                case 'b', 'B', 'x' -> 1;
                case 'h', 'H' -> 2;
                case 'l', 'L', 'T', 'd' -> 8;
                case 'f' -> 4;
                case 'c' -> number(1);
                case 'i', 'I' -> {
                    int n = number(4);
                    if (n > MAX_INT_SIZE) {
                        throw args.error("integral size " + n + " is larger than limit of " + MAX_INT_SIZE);
                    }
                    yield n;
                }
                default -> 0;
            };
        }

        /** @return the zero bytes that bring {@code length} to the alignment of an item of {@code size} */
        long padding(long length, char opt, long size) {
            if (size <= 1 || opt == 'c') {
                return 0;
            }
            long a = Math.min(size, align);
            return (a - (length & (a - 1))) & (a - 1);
        }

        /** Applies a byte-order or alignment option; anything else is not an option. */
        void control(char opt) {
            switch (opt) {
                case ' ' -> { }
                case '>' -> bigEndian = true;
                case '<' -> bigEndian = false;
                case '!' -> {
                    int a = number(MAX_ALIGN);
                    if (a == 0 || (a & (a - 1)) != 0) {
                        throw args.error("alignment " + a + " is not a power of 2");
                    }
                    align = a;
                }
                default -> throw args.argError(1, "invalid format option '" + opt + "'");
            }
        }
    }

    private static byte[] pack(LuaArgs args, Varargs a) {
        Format f = new Format(args, args.string(a, 1));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 2;
        long total = 0;
        while (f.more()) {
            char opt = f.next();
            long size = f.size(opt);
            long pad = f.padding(total, opt, size);
            total += pad;
            for (long i = 0; i < pad; i++) {
                out.write(0);
            }
            switch (opt) {
                case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' -> {
                    double n = number(args, a, arg++);
                    long v = n < 0 ? LuaArgs.toLong(n) : LuaArgs.toUnsignedLong(n);
                    putInteger(out, v, (int) size, f.bigEndian);
                }
                case 'x' -> out.write(0);
                case 'f' -> {
                    float x = (float) number(args, a, arg++);
                    putInteger(out, Float.isNaN(x) ? 0xffc00000 : Float.floatToRawIntBits(x), 4, f.bigEndian); // see LuaArgs.bits
                }
                case 'd' -> putInteger(out, LuaArgs.bits(number(args, a, arg++)), 8, f.bigEndian);
                case 'c', 's' -> {
                    byte[] s = string(args, a, arg++);
                    if (size == 0) {
                        size = s.length;
                    }
                    if (s.length < size) {
                        throw args.argError(arg, "string too short"); // Lua's library names the next argument
                    }
                    out.write(s, 0, (int) size);
                    if (opt == 's') {
                        out.write(0);
                        size++;
                    }
                }
                default -> f.control(opt);
            }
            total += size;
        }
        return out.toByteArray();
    }

    /** pack's arguments: one not given reads as nil, the marker Lua's library pushes after them. */
    private static double number(LuaArgs args, Varargs a, int n) {
        if (n > a.narg()) {
            throw args.argError(n, "number expected, got nil");
        }
        return args.number(a, n);
    }

    private static byte[] string(LuaArgs args, Varargs a, int n) {
        if (n > a.narg()) {
            throw args.argError(n, "string expected, got nil");
        }
        return args.string(a, n);
    }

    /** The low bytes of {@code v}, {@code size} of them; past the eighth they are zero. */
    private static void putInteger(ByteArrayOutputStream out, long v, int size, boolean bigEndian) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[bigEndian ? size - 1 - i : i] = (byte) v;
            v >>>= 8;
        }
        out.write(b, 0, size);
    }

    private static Varargs unpack(LuaArgs args, Varargs a) {
        Format f = new Format(args, args.string(a, 1));
        byte[] data = args.string(a, 2);
        long length = data.length;
        long pos = args.optInteger(a, 3, 1); // as C's size_t: a negative start passes, and is far past the end
        if (pos == 0) {
            throw args.argError(3, "offset must be 1 or greater");
        }
        pos--;
        List<LuaValue> out = new ArrayList<>();
        while (f.more()) {
            char opt = f.next();
            long size = f.size(opt);
            pos += f.padding(pos, opt, size);
            if (Long.compareUnsigned(size, length) > 0 || Long.compareUnsigned(pos, length - size) > 0) {
                throw args.argError(2, "data string too short");
            }
            if (a.narg() + out.size() + 2 > MAX_STACK_SLOTS) { // Lua 5.1's room check for two results more
                throw args.error("stack overflow (too many results)");
            }
            switch (opt) {
                case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' ->
                        out.add(LuaValue.valueOf(getInteger(data, (int) pos, (int) size, f.bigEndian,
                                Character.isLowerCase(opt))));
                case 'x' -> { }
                case 'f' -> out.add(LuaValue.valueOf(
                        Float.intBitsToFloat((int) getBits(data, (int) pos, 4, f.bigEndian))));
                case 'd' -> out.add(LuaValue.valueOf(
                        Double.longBitsToDouble(getBits(data, (int) pos, 8, f.bigEndian))));
                case 'c' -> {
                    if (size == 0) {
                        LuaValue last = out.isEmpty() ? LuaValue.NIL : out.getLast();
                        LuaValue n = last.type() == LuaValue.TNUMBER || last.type() == LuaValue.TSTRING
                                ? last.tonumber() : LuaValue.NIL;
                        if (n.isnil()) {
                            throw args.error("format 'c0' needs a previous size");
                        }
                        size = LuaArgs.toUnsignedLong(n.todouble());
                        out.removeLast();
                        if (Long.compareUnsigned(size, length) > 0 || Long.compareUnsigned(pos, length - size) > 0) {
                            throw args.argError(2, "data string too short");
                        }
                    }
                    out.add(LuaValue.valueOf(Arrays.copyOfRange(data, (int) pos, (int) (pos + size))));
                }
                case 's' -> {
                    int end = (int) pos;
                    while (end < data.length && data[end] != 0) {
                        end++;
                    }
                    if (end == data.length) {
                        throw args.error("unfinished string in data");
                    }
                    size = end - pos + 1;
                    out.add(LuaValue.valueOf(Arrays.copyOfRange(data, (int) pos, end)));
                }
                default -> f.control(opt);
            }
            pos += size;
        }
        out.add(LuaValue.valueOf((double) (pos + 1)));
        return LuaValue.varargsOf(out.toArray(LuaValue[]::new));
    }

    /** @return the low 64 bits of the {@code size} bytes at {@code at}, in the byte order given */
    private static long getBits(byte[] data, int at, int size, boolean bigEndian) {
        long v = 0;
        for (int i = 0; i < size; i++) {
            v = v << 8 | (data[bigEndian ? at + i : at + size - 1 - i] & 0xFF);
        }
        return v;
    }

    /**
     * An integer as the library reads it: the low 64 bits, sign-extended from the top bit of the
     * item when signed; past 8 bytes the shift that finds that bit counts modulo 64 as x86's does.
     */
    private static double getInteger(byte[] data, int at, int size, boolean bigEndian, boolean signed) {
        long v = getBits(data, at, size, bigEndian);
        if (!signed) {
            return LuaArgs.unsignedToDouble(v);
        }
        long mask = -1L << ((size * 8 - 1) & 63);
        if ((v & mask) != 0) {
            v |= mask;
        }
        return v;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static long size(LuaArgs args, Varargs a) {
        Format f = new Format(args, args.string(a, 1));
        long pos = 0;
        while (f.more()) {
            char opt = f.next();
            long size = f.size(opt);
            pos += f.padding(pos, opt, size);
            if (opt == 's') {
                throw args.argError(1, "option 's' has no fixed size");
            } else if (opt == 'c' && size == 0) {
                throw args.argError(1, "option 'c0' has no fixed size");
            }
            if (!isDigit(opt) && !(opt >= 'a' && opt <= 'z') && !(opt >= 'A' && opt <= 'Z')) { // C's isalnum
                f.control(opt);
            }
            pos += size;
        }
        return pos;
    }
}
