package readyq

// CopiesOutside reports whether large hand-outs are copied after the
// unlock. It is false when built with -tags readyq_copyall.
const CopiesOutside = copyOutside
