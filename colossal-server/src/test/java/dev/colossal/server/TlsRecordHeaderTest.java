package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** When {@link TlsRecordHeader} lets the session skip the engine: only when a record surely is not all there. */
class TlsRecordHeaderTest {

    private static final int LARGEST = 16_709; // TLS 1.3's packet buffer size in the JDK

    /** A buffer ready to fill holding {@code bytes}, as the session keeps its ciphertext. */
    private static ByteBuffer buffered(int capacity, int... bytes) {
        ByteBuffer b = ByteBuffer.allocate(capacity);
        for (int x : bytes) {
            b.put((byte) x);
        }
        return b;
    }

    @Test
    void fewerBytesThanAHeaderArePartial() {
        assertTrue(TlsRecordHeader.partial(buffered(64), LARGEST));
        assertTrue(TlsRecordHeader.partial(buffered(64, 0x17, 0x03, 0x03, 0x00), LARGEST));
    }

    @Test
    void aRecordIsPartialUntilItsLastByte() {
        ByteBuffer b = buffered(64, 0x17, 0x03, 0x03, 0x00, 0x03, 'a', 'b');
        assertTrue(TlsRecordHeader.partial(b, LARGEST));
        b.put((byte) 'c');
        assertFalse(TlsRecordHeader.partial(b, LARGEST), "five bytes of header and the three it promised");
        b.put((byte) 0x17);
        assertFalse(TlsRecordHeader.partial(b, LARGEST), "a whole record with the next one's first byte");
    }

    @Test
    void theLengthIsUnsignedAndBigEndian() {
        ByteBuffer b = ByteBuffer.allocate(0x4005);
        b.put(new byte[] {0x17, 0x03, 0x03, 0x40, 0x00});
        b.position(0x4004);
        assertTrue(TlsRecordHeader.partial(b, LARGEST), "16 KiB promised, one byte short");
        b.position(0x4005);
        assertFalse(TlsRecordHeader.partial(b, LARGEST));
        ByteBuffer small = buffered(300, 0x16, 0x03, 0x01, 0x00, 0x80);
        small.position(5 + 0x7f);
        assertTrue(TlsRecordHeader.partial(small, LARGEST), "0x0080 is 128, not 32,768 or -128");
    }

    @Test
    void whatIsNotARecordHeaderGoesToTheEngineToBeRefused() {
        // a plain-text client's "PING\r\n" on the TLS port, and a header whose type or version is wrong
        assertFalse(TlsRecordHeader.partial(buffered(64, 'P', 'I', 'N', 'G', '\r', '\n'), LARGEST));
        assertFalse(TlsRecordHeader.partial(buffered(64, 0x19, 0x03, 0x03, 0x00, 0x10), LARGEST));
        assertFalse(TlsRecordHeader.partial(buffered(64, 0x13, 0x03, 0x03, 0x00, 0x10), LARGEST));
        assertFalse(TlsRecordHeader.partial(buffered(64, 0x17, 0x02, 0x03, 0x00, 0x10), LARGEST));
        // a length past the largest record: the engine says the record is too big rather than waiting for it
        assertFalse(TlsRecordHeader.partial(buffered(64, 0x17, 0x03, 0x03, 0xff, 0xff), LARGEST));
        assertTrue(TlsRecordHeader.partial(buffered(64, 0x14, 0x03, 0x03, 0x00, 0x10), LARGEST), "change_cipher_spec");
        assertTrue(TlsRecordHeader.partial(buffered(64, 0x18, 0x03, 0x03, 0x00, 0x10), LARGEST), "heartbeat");
    }
}
