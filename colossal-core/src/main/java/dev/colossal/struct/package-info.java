/**
 * Structs: fixed-size records laid out in off-heap memory, read and written in place.
 *
 * <p>{@link dev.colossal.struct.StructType} derives a struct from a record or an interface;
 * {@link dev.colossal.struct.StructArray} holds N of them over one segment (or over power-of-two
 * chunks) and moves a reusable {@link dev.colossal.struct.Flyweight} from element to element, so a
 * loop over millions of structs allocates nothing.
 *
 * <pre>{@code
 * public interface Tick {
 *     long time();   void time(long t);
 *     double price(); void price(double p);
 *     @Length(8) String symbol(); void symbol(String s);
 * }
 * StructArray<Tick> ticks = StructArray.allocate(StructType.of(Tick.class), 1_000_000, arena);
 * Tick t = ticks.flyweight();
 * for (long i = 0; i < ticks.length(); i++) {
 *     ticks.at(t, i).price(100.0 + i);
 * }
 * }</pre>
 *
 * <p>Memory is in the platform's byte order with natural alignment, so a C program with the same
 * struct declaration (see {@link dev.colossal.struct.StructType#describe()}) reads the same bytes.
 */
package dev.colossal.struct;
