/* Hashed n-gram scores of chat lines in one pass per line: the same numbers, bit for bit, as
 * `NgramHasher.scores` in features.py (numpy), which remains the reference and the fallback.
 *
 * For each text, over the segment " " + text + " ":
 *   char n-grams, n = lo..hi, every start position in order: h = sum_j (c[s+j] + 1) * P^j, then ^ n;
 *   word n-grams, n = 1..word_ngrams (words = runs of non-separators; a word n-gram spans from
 *   the first word's start to the last word's end, separators included): same hash, ^ (1000 + n).
 * Every hash goes through the murmur3 finaliser; column = (mix(h) >> 16) mod n_features.
 * Score of head k = (float)(sum, in double and in that order, of weight[column][k]) * scale,
 * scale = 1 / sqrtf(max(n-grams, 1)) in float: numpy's bincount sums its float32 weights in
 * double in array order, and the array order per text is exactly this order.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define P 0x100000001B3ULL
#define MIX1 0xFF51AFD7ED558CCDULL
#define MIX2 0xC4CEB9FE1A85EC53ULL
#define MAX_WIDTH 16
/* Up to 16 heads: a packed row of 16 float32 is one 64-byte cache line, so every n-gram still
 * costs one random memory access however many heads read it. */

static const char SEPARATORS[] = " \t\n\r.,!?;:\"'()[]{}<>/\\|-_*+=~`^#&%";
static unsigned char is_separator[128];

static inline uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= MIX1;
    h ^= h >> 33;
    h *= MIX2;
    h ^= h >> 33;
    return h;
}

typedef struct {
    uint64_t n_features;
    int power_of_two;
    uint64_t *cols; /* this text's n-gram columns, in summation order */
    Py_ssize_t count, capacity;
} Cols;

static inline void add(Cols *acc, uint64_t h) {
    uint64_t top = mix(h) >> 16;
    acc->cols[acc->count++] = acc->power_of_two ? (top & (acc->n_features - 1)) : (top % acc->n_features);
}

/* Upper bound on a text's n-grams: every char n-gram start plus every word n-gram. */
static Py_ssize_t max_ngrams(Py_ssize_t seg, int lo, int hi, int word_ngrams) {
    return (Py_ssize_t)((hi >= lo ? hi - lo + 1 : 0) + word_ngrams) * seg;
}

static inline int word_char(uint64_t c) { return c >= 128 || !is_separator[c]; }

/* Polynomial hash of a run of (code point + 1) values. */
static inline uint64_t span_hash(const uint64_t *codes, Py_ssize_t start, Py_ssize_t end) {
    uint64_t h = 0, power = 1;
    for (Py_ssize_t i = start; i < end; i++) {
        h += codes[i] * power;
        power *= P;
    }
    return h;
}

static PyObject *scores(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *texts;
    Py_buffer weights;
    Py_ssize_t stride, n_features;
    int width, lo, hi, word_ngrams;
    if (!PyArg_ParseTuple(args, "O!y*niniii", &PyList_Type, &texts, &weights, &stride, &width, &n_features, &lo, &hi,
                          &word_ngrams)) {
        return NULL;
    }
    PyObject *out = NULL;
    Py_ssize_t *word_start = NULL, *word_end = NULL;
    uint64_t *codes = NULL;
    Cols acc = {(uint64_t)n_features, n_features > 0 && (n_features & (n_features - 1)) == 0, NULL, 0, 0};
    Py_ssize_t n_texts = PyList_GET_SIZE(texts);
    if (width < 1 || width > MAX_WIDTH || stride < width || n_features < 1 ||
        weights.len < (Py_ssize_t)sizeof(float) * stride * n_features) {
        PyErr_SetString(PyExc_ValueError, "weights buffer does not match n_features x stride");
        goto done;
    }
    if ((lo <= hi && (lo < 1 || hi > 64)) || word_ngrams < 0 || word_ngrams > 64) {
        PyErr_SetString(PyExc_ValueError, "n-gram sizes must lie in 1..64");
        goto done;
    }
    out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(float) * width * n_texts);
    if (out == NULL) {
        goto done;
    }
    float *result = (float *)PyByteArray_AS_STRING(out);
    const float *table = (const float *)weights.buf;
    Py_ssize_t capacity = 0;
    for (Py_ssize_t t = 0; t < n_texts; t++) {
        PyObject *text = PyList_GET_ITEM(texts, t);
        if (!PyUnicode_Check(text)) {
            PyErr_SetString(PyExc_TypeError, "texts must be str");
            Py_CLEAR(out);
            goto done;
        }
        int kind = PyUnicode_KIND(text);
        const void *data = PyUnicode_DATA(text);
        Py_ssize_t len = PyUnicode_GET_LENGTH(text), seg = len + 2;
        if (seg > capacity) {
            capacity = seg;
            PyMem_Free(codes);
            PyMem_Free(word_start);
            PyMem_Free(word_end);
            codes = PyMem_Malloc(sizeof(uint64_t) * capacity);
            word_start = PyMem_Malloc(sizeof(Py_ssize_t) * capacity);
            word_end = PyMem_Malloc(sizeof(Py_ssize_t) * capacity);
            if (codes == NULL || word_start == NULL || word_end == NULL) {
                PyErr_NoMemory();
                Py_CLEAR(out);
                goto done;
            }
        }
        /* The segment " " + text + " " as code point + 1, the hash's digits. */
        codes[0] = codes[seg - 1] = ' ' + 1;
        for (Py_ssize_t i = 0; i < len; i++) {
            codes[i + 1] = (uint64_t)PyUnicode_READ(kind, data, i) + 1;
        }
        Py_ssize_t need = max_ngrams(seg, lo, hi, word_ngrams);
        if (need > acc.capacity) {
            PyMem_Free(acc.cols);
            acc.capacity = need > 1024 ? need : 1024;
            acc.cols = PyMem_Malloc(sizeof(uint64_t) * acc.capacity);
            if (acc.cols == NULL) {
                PyErr_NoMemory();
                Py_CLEAR(out);
                goto done;
            }
        }
        acc.count = 0;
        for (int n = lo; n <= hi; n++) {
            if (seg < n) {
                continue;
            }
            /* Each window hashed directly: n multiply-adds (n <= 5 here). */
            for (Py_ssize_t s = 0; s + n <= seg; s++) {
                add(&acc, span_hash(codes, s, s + n) ^ (uint64_t)n);
            }
        }
        if (word_ngrams > 0) {
            Py_ssize_t words = 0;
            for (Py_ssize_t i = 0; i < seg;) {
                if (!word_char(codes[i] - 1)) {
                    i++;
                    continue;
                }
                word_start[words] = i;
                while (i < seg && word_char(codes[i] - 1)) {
                    i++;
                }
                word_end[words++] = i;
            }
            for (int n = 1; n <= word_ngrams; n++) {
                for (Py_ssize_t w = 0; w + n <= words; w++) {
                    uint64_t h = span_hash(codes, word_start[w], word_end[w + n - 1]);
                    add(&acc, h ^ (uint64_t)(1000 + n));
                }
            }
        }
        /* The weight rows are random reads into a table far larger than the CPU caches: they are
         * requested a few n-grams ahead, while the sums stay in order. */
        double sums[MAX_WIDTH] = {0};
        for (Py_ssize_t i = 0; i < acc.count; i++) {
            if (i + 8 < acc.count) {
                const float *ahead = table + (Py_ssize_t)acc.cols[i + 8] * stride;
                __builtin_prefetch(ahead);
                if (width > 4) {
                    __builtin_prefetch(ahead + width - 1); /* a row may straddle two cache lines */
                }
            }
            const float *row = table + (Py_ssize_t)acc.cols[i] * stride;
            for (int k = 0; k < width; k++) {
                sums[k] += (double)row[k];
            }
        }
        float scale = 1.0f / sqrtf((float)(acc.count > 1 ? acc.count : 1));
        for (int k = 0; k < width; k++) {
            result[t * width + k] = (float)sums[k] * scale;
        }
    }
done:
    PyMem_Free(acc.cols);
    PyMem_Free(codes);
    PyMem_Free(word_start);
    PyMem_Free(word_end);
    PyBuffer_Release(&weights);
    return out;
}

static PyMethodDef methods[] = {
    {"scores", scores, METH_VARARGS,
     "scores(texts, weights, stride, width, n_features, lo, hi, word_ngrams) -> bytearray of float32 "
     "(len(texts) x width): NgramHasher.scores computed per text in C."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ngram", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__ngram(void) {
    for (const char *c = SEPARATORS; *c; c++) {
        is_separator[(unsigned char)*c] = 1;
    }
    return PyModule_Create(&module);
}
