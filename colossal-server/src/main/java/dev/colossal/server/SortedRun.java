package dev.colossal.server;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.SortedMap;

/**
 * Keys already in ascending natural order with their values, seen as a read-only sorted map for
 * one purpose: {@code new TreeMap<>(run)} builds its tree from a sorted map in one linear pass,
 * with no key comparison, where putting the entries one by one compares and rebalances on each.
 * Only what that constructor reads is here (size, entry iteration, a natural-order comparator);
 * the views a sorted map has besides are refused, and its iteration hands out one entry moved
 * along, which suits a reader that takes each key and value before the next, as the constructor does.
 *
 * @param <K> the keys, ascending and distinct (the caller checked)
 * @param <V> the values
 */
final class SortedRun<K, V> extends AbstractMap<K, V> implements SortedMap<K, V> {

    private final K[] keys;
    private final V[] values;

    SortedRun(K[] keys, V[] values) {
        this.keys = keys;
        this.values = values;
    }

    @Override
    public int size() {
        return keys.length;
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return keys.length;
            }

            @Override
            public Iterator<Map.Entry<K, V>> iterator() {
                return new Iterator<>() {
                    private int i;
                    /** One entry, moved along: the TreeMap takes its key and value before asking for the next. */
                    private final Slot<K, V> slot = new Slot<>();

                    @Override
                    public boolean hasNext() {
                        return i < keys.length;
                    }

                    @Override
                    public Map.Entry<K, V> next() {
                        if (i >= keys.length) {
                            throw new NoSuchElementException();
                        }
                        slot.key = keys[i];
                        slot.value = values[i];
                        i++;
                        return slot;
                    }
                };
            }
        };
    }

    /** The entry an iteration hands out, read-only and moved to each key in turn. */
    private static final class Slot<K, V> implements Map.Entry<K, V> {
        private K key;
        private V value;

        @Override
        public K getKey() {
            return key;
        }

        @Override
        public V getValue() {
            return value;
        }

        @Override
        public V setValue(V v) {
            throw new UnsupportedOperationException("a sorted run is read-only");
        }
    }

    /** @return null: natural order, which a TreeMap of natural order must see to build from this run as it is */
    @Override
    public Comparator<? super K> comparator() {
        return null;
    }

    @Override
    public K firstKey() {
        if (keys.length == 0) {
            throw new NoSuchElementException();
        }
        return keys[0];
    }

    @Override
    public K lastKey() {
        if (keys.length == 0) {
            throw new NoSuchElementException();
        }
        return keys[keys.length - 1];
    }

    @Override
    public SortedMap<K, V> subMap(K fromKey, K toKey) {
        throw new UnsupportedOperationException("a sorted run only feeds a TreeMap");
    }

    @Override
    public SortedMap<K, V> headMap(K toKey) {
        throw new UnsupportedOperationException("a sorted run only feeds a TreeMap");
    }

    @Override
    public SortedMap<K, V> tailMap(K fromKey) {
        throw new UnsupportedOperationException("a sorted run only feeds a TreeMap");
    }
}
