package dev.colossal.bench.codecs;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.apache.fory.memory.MemoryBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.BenchmarkMode;

/**
 * Encode, decode and round trip of one value per operation, for each serializer, on the price update
 * and on MediaContent. Every serializer writes into a reused buffer where its API allows it: ours
 * into an off-heap segment, Kryo into an Output, Fory into a MemoryBuffer; JDK serialization has
 * no such API and writes a new byte array.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(java.util.concurrent.TimeUnit.SECONDS)
public class CodecsBench {

    /** Which object: {@code price} (the seed's price update) or {@code media} (MediaContent). */
    @Param({"price", "media"})
    public String shape;

    private Object value;
    private Class<?> type;
    private Codec<Object> codec;
    private MemorySegment buffer;
    private MemorySegment encoded;
    private byte[] jdkBytes;
    private Kryo kryo;
    private Output kryoOutput;
    private Input kryoInput;
    private byte[] kryoBytes;
    /**
     * Fory 1.6.0 defaults to its compatible mode, which writes each type's field metadata into every
     * message (415 bytes for MediaContent instead of 239): the counterpart of our evolving codec, not
     * of {@code Codecs.of}. The plain codec's counterpart is Fory's schema-consistent mode, so that is
     * what runs here unless {@code -Dfory.compatible=true}; {@code -Dfory.compressNumbers} (default
     * true, Fory's own default) chooses varint ints and longs.
     */
    static final boolean FORY_COMPATIBLE = Boolean.getBoolean("fory.compatible");
    static final boolean FORY_NUMBERS_COMPRESSED =
            Boolean.parseBoolean(System.getProperty("fory.compressNumbers", "true"));

    private Fory fory;
    private MemoryBuffer foryBuffer;
    private MemoryBuffer foryEncoded;

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void setUp() throws IOException {
        value = shape.equals("price") ? Model.priceUpdate() : Model.mediaContent();
        type = value.getClass();
        codec = (Codec<Object>) Codecs.of(type);
        buffer = Arena.ofAuto().allocate(1 << 16);
        long end = codec.encode(value, buffer, 0);
        encoded = Arena.ofAuto().allocate(end);
        codec.encode(value, encoded, 0);
        check(codec.decode(encoded));

        jdkBytes = jdkEncode(value);
        check(jdkDecode(jdkBytes));

        kryo = new Kryo();
        for (Class<?> c : List.of(Model.PriceUpdate.class, Model.Instrument.class, Model.MediaContent.class,
                Model.Media.class, Model.Image.class, Model.Player.class, Model.Size.class, ArrayList.class,
                List.of().getClass(), List.of(1).getClass(), List.of(1, 2).getClass())) {
            kryo.register(c);
        }
        kryo.setRegistrationRequired(false);
        kryoOutput = new Output(1 << 16);
        kryo.writeObject(kryoOutput, value);
        kryoBytes = kryoOutput.toBytes();
        kryoInput = new Input(kryoBytes);
        check(kryo.readObject(new Input(kryoBytes), type));

        fory = fory(List.of(Model.PriceUpdate.class, Model.Instrument.class, Model.MediaContent.class,
                Model.Media.class, Model.Image.class, Model.Player.class, Model.Size.class));
        foryBuffer = MemoryBuffer.fromByteArray(new byte[1 << 16]);
        foryBuffer.writerIndex(0);
        fory.serialize(foryBuffer, value);
        byte[] foryBytes = new byte[foryBuffer.writerIndex()];
        System.arraycopy(foryBuffer.getHeapMemory(), 0, foryBytes, 0, foryBytes.length);
        foryEncoded = MemoryBuffer.fromByteArray(foryBytes);
        check(fory.deserialize(MemoryBuffer.fromByteArray(foryBytes)));
        System.out.printf("%s sizes: colossal=%d jdk=%d kryo=%d fory=%d%n", shape, end, jdkBytes.length,
                kryoBytes.length, foryBytes.length);
    }

    /** Fory as every case here runs it: no reference tracking, registered classes, the flags above. */
    static Fory fory(List<Class<?>> types) {
        Fory f = Fory.builder().withLanguage(Language.JAVA).withRefTracking(false).requireClassRegistration(true)
                .withCompatible(FORY_COMPATIBLE).withNumberCompressed(FORY_NUMBERS_COMPRESSED).build();
        types.forEach(f::register);
        return f;
    }

    private void check(Object decoded) {
        if (!value.equals(decoded)) {
            throw new IllegalStateException("round trip changed the value: " + decoded);
        }
    }

    // ---- Colossal codec

    @Benchmark
    public long colossalEncode() {
        return codec.encode(value, buffer, 0);
    }

    @Benchmark
    public Object colossalDecode() {
        return codec.decode(encoded);
    }

    @Benchmark
    public Object colossalRoundTrip() {
        long end = codec.encode(value, buffer, 0);
        return codec.decode(buffer.asSlice(0, end));
    }

    // ---- JDK serialization

    @Benchmark
    public byte[] jdkEncode() throws IOException {
        return jdkEncode(value);
    }

    @Benchmark
    public Object jdkDecode() throws IOException {
        return jdkDecode(jdkBytes);
    }

    @Benchmark
    public Object jdkRoundTrip() throws IOException {
        return jdkDecode(jdkEncode(value));
    }

    private static byte[] jdkEncode(Object v) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(v);
        }
        return bytes.toByteArray();
    }

    private static Object jdkDecode(byte[] bytes) throws IOException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            return in.readObject();
        } catch (ClassNotFoundException e) {
            throw new IOException(e);
        }
    }

    // ---- Kryo 5

    @Benchmark
    public int kryoEncode() {
        kryoOutput.setPosition(0);
        kryo.writeObject(kryoOutput, value);
        return kryoOutput.position();
    }

    @Benchmark
    public Object kryoDecode() {
        kryoInput.setBuffer(kryoBytes);
        return kryo.readObject(kryoInput, type);
    }

    @Benchmark
    public Object kryoRoundTrip() {
        kryoOutput.setPosition(0);
        kryo.writeObject(kryoOutput, value);
        kryoInput.setBuffer(kryoOutput.getBuffer(), 0, kryoOutput.position());
        return kryo.readObject(kryoInput, type);
    }

    // ---- Apache Fory

    @Benchmark
    public int foryEncode() {
        foryBuffer.writerIndex(0);
        fory.serialize(foryBuffer, value);
        return foryBuffer.writerIndex();
    }

    @Benchmark
    public Object foryDecode() {
        foryEncoded.readerIndex(0);
        return fory.deserialize(foryEncoded);
    }

    @Benchmark
    public Object foryRoundTrip() {
        foryBuffer.writerIndex(0);
        fory.serialize(foryBuffer, value);
        foryBuffer.readerIndex(0);
        return fory.deserialize(foryBuffer);
    }
}
