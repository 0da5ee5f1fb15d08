package dev.colossal.server;

import java.io.ByteArrayOutputStream;

/**
 * The little of ASN.1 DER that turning OpenSSL's traditional key files into PKCS#8 takes: reading
 * one element (tag, length, contents) and writing one. A length is one byte below 128, else
 * {@code 0x80 | n} followed by n big-endian bytes.
 */
final class Der {

    static final int INTEGER = 0x02;
    static final int OCTET_STRING = 0x04;
    static final int NULL = 0x05;
    static final int OID = 0x06;
    static final int SEQUENCE = 0x30;
    /** {@code [0]}, where SEC1's ECPrivateKey keeps its curve. */
    static final int CONTEXT_0 = 0xA0;

    private Der() {}

    /** One element read from {@code der} at {@code at}: its tag, where its contents start and end. */
    record Element(int tag, int start, int end) {
        byte[] contents(byte[] der) {
            return java.util.Arrays.copyOfRange(der, start, end);
        }
    }

    /** @throws IllegalArgumentException if the element runs past {@code limit} */
    static Element read(byte[] der, int at, int limit) {
        if (at + 2 > limit) {
            throw new IllegalArgumentException("DER ends inside an element");
        }
        int tag = der[at] & 0xFF;
        int len = der[at + 1] & 0xFF;
        int start = at + 2;
        if (len >= 0x80) {
            int n = len & 0x7F;
            if (n == 0 || n > 4 || start + n > limit) {
                throw new IllegalArgumentException("DER length of " + n + " bytes");
            }
            len = 0;
            for (int i = 0; i < n; i++) {
                len = len << 8 | der[start + i] & 0xFF;
            }
            start += n;
        }
        if (len < 0 || start + len > limit) {
            throw new IllegalArgumentException("DER element longer than its container");
        }
        return new Element(tag, start, start + len);
    }

    /** @return the element with {@code tag} and {@code contents}, as DER */
    static byte[] write(int tag, byte[]... contents) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] c : contents) {
            body.writeBytes(c);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int len = body.size();
        if (len < 0x80) {
            out.write(len);
        } else {
            int n = (32 - Integer.numberOfLeadingZeros(len) + 7) / 8;
            out.write(0x80 | n);
            for (int i = n - 1; i >= 0; i--) {
                out.write(len >>> (8 * i));
            }
        }
        out.writeBytes(body.toByteArray());
        return out.toByteArray();
    }
}
