# The tuner's marginal plot of one parameter: the objective against the parameter's value, every evaluation
# (screening ones open, full ones filled, those that violate a constraint as crosses), the baseline and the
# recommendation marked.  A choice parameter is drawn on a categorical axis, its points spread a little
# sideways (by evaluation) so that they do not hide each other.
# Set by rocesim before this template: png, dat, title, subtitle, xlabel, ylabel, screen_label, full_label,
# base_label, nchoices and clabel[1..nchoices], logx/xlo/xhi, logy/ylo/yhi, and the block of each kind of point
# in dat (-1: none): i_screen, i_full, i_infeas, i_base, i_best.  Data: parameter, objective, evaluation index.
if (!exists("outname")) outname = png
set terminal pngcairo size 1000,620 noenhanced font 'DejaVu Sans,10'
set output outname
set title sprintf("%s\n%s", title, subtitle)
set xlabel xlabel
set ylabel ylabel
set grid
set key below vertical maxrows 2 box spacing 1.6 samplen 2.5
set bmargin 8  # room for the x label and the key under it: gnuplot reserves too little for big markers
if (nchoices > 0) {
    set xtics ()
    do for [i=1:nchoices] { set xtics add (clabel[i] i - 1) }
    set grid noxtics
}
if (logx) {
    # labelled at 1, 2 and 5 times each power of ten: gnuplot's own tics show only the powers
    set logscale x
    set xtics ()
    do for [d=floor(log10(xlo)):ceil(log10(xhi))] {
        do for [m in "1 2 5"] { v = real(m) * 10.0**d; set xtics add (sprintf("%g", v) v) }
    }
}
set xrange [xlo:xhi]
if (logy) {
    # labelled at 1, 2 and 5 times each power of ten: gnuplot's own tics show only the powers
    set logscale y
    set ytics ()
    do for [d=floor(log10(ylo)):ceil(log10(yhi))] {
        do for [m in "1 2 5"] { v = real(m) * 10.0**d; set ytics add (sprintf("%g", v) v) }
    }
}
set yrange [ylo:yhi]
# the golden ratio spreads evaluation indices evenly over [-0.15, 0.15)
jx(x, id) = nchoices > 0 ? x + 0.3 * (id * 0.618034 - floor(id * 0.618034) - 0.5) : x
# a kind of point with no block (-1) is left out by its empty loop; gnuplot parses its index all the same
ix(i) = i >= 0 ? i : 0
plot for [k=1:(i_screen >= 0)] dat index ix(i_screen) using (jx($1, $3)):2 with points pt 6 ps 1 lc rgb '#6baed6' title screen_label, \
     for [k=1:(i_full >= 0)] dat index ix(i_full) using (jx($1, $3)):2 with points pt 7 ps 1.2 lc rgb '#1f77b4' title full_label, \
     for [k=1:(i_infeas >= 0)] dat index ix(i_infeas) using (jx($1, $3)):2 with points pt 2 ps 1.3 lw 1.5 lc rgb '#7f7f7f' title 'violates a constraint', \
     for [k=1:(i_base >= 0)] dat index ix(i_base) using (jx($1, $3)):2 with points pt 4 ps 2.8 lw 2.5 lc rgb '#ff7f0e' title base_label, \
     for [k=1:(i_best >= 0)] dat index ix(i_best) using (jx($1, $3)):2 with points pt 6 ps 3.5 lw 2.5 lc rgb '#d62728' title 'recommendation'
