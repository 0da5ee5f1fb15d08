package dev.colossal.codec;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * {@link BigInteger} as a varint byte count and its two's-complement bytes, most significant first
 * ({@link BigInteger#toByteArray}); {@link BigDecimal} as its scale (a little-endian int) and its
 * unscaled value as a BigInteger. The scale is kept, as {@code BigDecimal.equals} keeps 1.0 and 1.00
 * apart.
 */
final class BigNumberCodecs {

    private BigNumberCodecs() {}

    static final NamedCodec<BigInteger> BIG_INTEGER = new NamedCodec<>("BigInteger") {
        @Override public long size(BigInteger v) {
            int n = v.bitLength() / 8 + 1; // the length of toByteArray, without making the array
            return WireFormat.varintSize(n) + n;
        }

        @Override public void write(BigInteger v, Output out) {
            byte[] bytes = v.toByteArray();
            out.writeVarint(bytes.length);
            out.writeBytes(bytes, 0, bytes.length);
        }

        @Override public BigInteger read(Input in) {
            long start = in.position();
            byte[] bytes = ArrayCodecs.BYTES.read(in);
            if (bytes.length == 0) {
                in.skip(start - in.position());
                throw in.error("BigInteger", "length=0: a BigInteger takes at least one byte");
            }
            return new BigInteger(bytes);
        }

        @Override public String schema() { return "biginteger"; }
    };

    static final NamedCodec<BigDecimal> BIG_DECIMAL = new NamedCodec<>("BigDecimal") {
        @Override public long size(BigDecimal v) { return 4 + BIG_INTEGER.size(v.unscaledValue()); }

        @Override public void write(BigDecimal v, Output out) {
            out.writeInt(v.scale());
            BIG_INTEGER.write(v.unscaledValue(), out);
        }

        @Override public BigDecimal read(Input in) {
            int scale = in.readInt();
            return new BigDecimal(BIG_INTEGER.read(in), scale);
        }

        @Override public String schema() { return "bigdecimal"; }
    };
}
