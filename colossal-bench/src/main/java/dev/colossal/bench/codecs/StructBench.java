package dev.colossal.bench.codecs;

import dev.colossal.struct.StructArray;
import dev.colossal.struct.StructType;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The seed's price update as a struct in an off-heap array of 4096, written from a record (every
 * field, the symbol included) and read back through one reused flyweight: one struct per operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class StructBench {

    private static final int N = 1 << 12;
    private StructArray<Model.PriceUpdateStruct> array;
    private Model.PriceUpdateStruct flyweight;
    private Model.PriceUpdate value;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        array = StructArray.allocate(StructType.of(Model.PriceUpdateStruct.class), N, Arena.ofAuto());
        flyweight = array.flyweight();
        value = Model.priceUpdate();
        for (int i = 0; i < N; i++) {
            structEncode();
        }
    }

    @Benchmark
    public void structEncode() {
        Model.PriceUpdateStruct p = array.at(flyweight, next = (next + 1) & (N - 1));
        Model.PriceUpdate v = value;
        p.time(v.time());
        p.price(v.price());
        p.quantity(v.quantity());
        p.buy(v.buy());
        Model.InstrumentStruct in = p.instrument();
        in.id(v.instrument().id());
        in.symbol(v.instrument().symbol());
        in.market(v.instrument().market());
    }

    @Benchmark
    public void structDecode(Blackhole bh) {
        Model.PriceUpdateStruct p = array.at(flyweight, next = (next + 1) & (N - 1));
        bh.consume(p.time());
        bh.consume(p.price());
        bh.consume(p.quantity());
        bh.consume(p.buy());
        Model.InstrumentStruct in = p.instrument();
        bh.consume(in.id());
        bh.consume(in.market());
    }
}
