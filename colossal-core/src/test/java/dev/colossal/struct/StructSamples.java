package dev.colossal.struct;

/** Struct types for the tests: public, as flyweight interfaces must be. */
public final class StructSamples {

    private StructSamples() {}

    /** A tradable instrument, nested in a price update. */
    public interface Instrument {
        long id();

        void id(long v);

        @Length(8)
        String symbol();

        void symbol(String v);

        byte market();

        void market(byte v);
    }

    /** The seed's price update: prices, quantities and an embedded instrument. */
    public interface PriceUpdate {
        long time();

        void time(long v);

        double price();

        void price(double v);

        int quantity();

        void quantity(int v);

        boolean buy();

        void buy(boolean v);

        @Length(4)
        long bid(int level);

        void bid(int level, long v);

        Instrument instrument();
    }

    /** A record with padding between fields: byte, then long. */
    public record Padded(byte flag, long value, short small, @Length(3) String code, Inner inner) {}

    /** A nested record. */
    public record Inner(int a, @Length(2) double[] pair) {}
}
