package dev.colossal.bench.codecs;

import dev.colossal.struct.Length;
import java.io.Serializable;
import java.util.List;

/** The benchmarked types: the seed's price update and the jvm-serializers MediaContent graph. */
public final class Model {

    private Model() {}

    /** A tradable instrument, embedded in each price update. */
    public record Instrument(long id, String symbol, int market) implements Serializable {}

    /** The seed's message: a price update with an embedded instrument. */
    public record PriceUpdate(long time, double price, int quantity, boolean buy, Instrument instrument)
            implements Serializable {}

    /** The price update as a struct: a flyweight interface over off-heap memory. */
    public interface PriceUpdateStruct {
        long time();

        void time(long v);

        double price();

        void price(double v);

        int quantity();

        void quantity(int v);

        boolean buy();

        void buy(boolean v);

        InstrumentStruct instrument();
    }

    /** The instrument as a struct. */
    public interface InstrumentStruct {
        long id();

        void id(long v);

        @Length(8)
        String symbol();

        void symbol(String v);

        int market();

        void market(int v);
    }

    /** Player of a media item. */
    public enum Player { JAVA, FLASH }

    /** Image size. */
    public enum Size { SMALL, LARGE }

    /** A media item. */
    public record Media(String uri, String title, int width, int height, String format, long duration, long size,
                        int bitrate, boolean hasBitrate, List<String> persons, Player player, String copyright)
            implements Serializable {}

    /** An image. */
    public record Image(String uri, String title, int width, int height, Size size) implements Serializable {}

    /** The MediaContent object graph of the jvm-serializers benchmark. */
    public record MediaContent(Media media, List<Image> images) implements Serializable {}

    static PriceUpdate priceUpdate() {
        return new PriceUpdate(1_700_000_000_123L, 101.25, 300, true, new Instrument(4711, "EURUSD", 3));
    }

    static MediaContent mediaContent() {
        Media media = new Media("http://javaone.com/keynote.mpg", "Javaone Keynote", 640, 480, "video/mpg4",
                18_000_000, 58_982_400, 262_144, true, List.of("Bill Gates", "Steve Jobs"), Player.JAVA, null);
        List<Image> images = List.of(
                new Image("http://javaone.com/keynote_large.jpg", "Javaone Keynote", 1024, 768, Size.LARGE),
                new Image("http://javaone.com/keynote_small.jpg", "Javaone Keynote", 320, 240, Size.SMALL));
        return new MediaContent(media, images);
    }
}
