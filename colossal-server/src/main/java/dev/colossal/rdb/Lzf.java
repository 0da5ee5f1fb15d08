package dev.colossal.rdb;

/**
 * Decompresses LZF, which Redis uses for strings longer than 20 bytes when {@code rdbcompression}
 * is on. The input is a run of items, each starting with a control byte:
 *
 * <pre>
 *  000LLLLL                       a literal: the next L + 1 bytes are copied as they are
 *  LLLOOOOO OOOOOOOO              a back-reference: copy L + 2 bytes from O + 1 bytes back
 *  111OOOOO LLLLLLLL OOOOOOOO     the same with a longer run: copy 7 + L + 2 bytes
 * </pre>
 *
 * The high bits of the offset are the control byte's low five; a back-reference may overlap the
 * bytes it writes (a run of one repeated byte), so it is copied a byte at a time.
 */
public final class Lzf {

    private Lzf() {}

    /**
     * @param in     the compressed bytes
     * @param length the decompressed length, as the RDB records it
     * @return the decompressed bytes
     * @throws IllegalArgumentException if the input does not decompress to exactly {@code length} bytes
     */
    public static byte[] decompress(byte[] in, int length) {
        byte[] out = new byte[length];
        int ip = 0;
        int op = 0;
        while (ip < in.length) {
            int ctrl = in[ip++] & 0xff;
            if (ctrl < 32) {
                int run = ctrl + 1;
                if (ip + run > in.length || op + run > length) {
                    throw bad("a literal of " + run + " bytes runs past the end", ip - 1);
                }
                System.arraycopy(in, ip, out, op, run);
                ip += run;
                op += run;
                continue;
            }
            int run = ctrl >>> 5;
            if (run == 7) {
                if (ip >= in.length) {
                    throw bad("a back-reference is cut short", ip - 1);
                }
                run += in[ip++] & 0xff;
            }
            if (ip >= in.length) {
                throw bad("a back-reference is cut short", ip - 1);
            }
            int ref = op - ((ctrl & 0x1f) << 8) - (in[ip++] & 0xff) - 1;
            run += 2;
            if (ref < 0 || op + run > length) {
                throw bad("a back-reference points outside the output", ip - 1);
            }
            for (int i = 0; i < run; i++) {
                out[op++] = out[ref++];
            }
        }
        if (op != length) {
            throw new IllegalArgumentException("LZF data decompresses to " + op + " bytes, not the " + length + " recorded");
        }
        return out;
    }

    private static IllegalArgumentException bad(String what, int at) {
        return new IllegalArgumentException("LZF data damaged: " + what + " (byte " + at + " of the compressed string)");
    }
}
