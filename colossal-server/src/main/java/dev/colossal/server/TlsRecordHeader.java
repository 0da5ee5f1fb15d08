package dev.colossal.server;

import java.nio.ByteBuffer;

/**
 * The header that starts every TLS record (RFC 8446 section 5.1; the same five bytes in TLS 1.2),
 * read so that {@link TlsSession} asks the engine to decrypt only when a whole record is there:
 * each {@code SSLEngine.unwrap} that finds too few bytes still costs a lock and a round of checks,
 * and there were two such calls per unpipelined request.
 *
 * <pre>
 *  offset 0          1          2          3          4          5
 *        +----------+----------+----------+----------+----------+-------------------
 *        | type     | version (major,   | length (big-endian,  | fragment:
 *        | 20..24   | minor), 3.x       | bytes that follow)   | length bytes
 *        +----------+----------+----------+----------+----------+-------------------
 * </pre>
 */
final class TlsRecordHeader {

    static final int TYPE_OFFSET = 0;
    static final int MAJOR_VERSION_OFFSET = 1;
    static final int LENGTH_OFFSET = 3;
    static final int SIZE = 5;

    /** change_cipher_spec, the lowest content type; heartbeat (24) is the highest. */
    private static final int FIRST_TYPE = 20;
    private static final int LAST_TYPE = 24;
    private static final int MAJOR_VERSION = 3;

    private TlsRecordHeader() {
    }

    /**
     * Whether {@code buffered} (ready to fill: its bytes from 0 to its position) surely holds less
     * than one whole record, so that decrypting now could only report an underflow. Bytes that do
     * not look like a record header, or promise more than {@code largest}, answer false: the engine
     * is asked, and refuses them itself.
     */
    static boolean partial(ByteBuffer buffered, int largest) {
        int have = buffered.position();
        if (have < SIZE) {
            return true;
        }
        int type = buffered.get(TYPE_OFFSET);
        if (type < FIRST_TYPE || type > LAST_TYPE || buffered.get(MAJOR_VERSION_OFFSET) != MAJOR_VERSION) {
            return false;
        }
        int length = Short.toUnsignedInt(buffered.getShort(LENGTH_OFFSET));
        return SIZE + length <= largest && have < SIZE + length;
    }
}
