# The tuner's convergence: the best full-fidelity feasible objective after each run (a step line), every
# evaluation at the run count when it finished (screening ones faint, full ones solid, those that violate a
# constraint as crosses), the baseline as a dashed line.
# Set by rocesim before this template: png, dat, title, subtitle, ylabel, screen_label, full_label, base_label,
# have_base, base, logx/xlo/xhi, logy/ylo/yhi, and the block of each kind of point in dat (-1: none):
# i_best, i_screen, i_full, i_infeas.  Data: runs, objective, evaluation index.
if (!exists("outname")) outname = png
set terminal pngcairo size 1000,620 noenhanced font 'DejaVu Sans,10'
set output outname
set title sprintf("%s\n%s", title, subtitle)
set xlabel 'runs used (simulations finished, screening and full)'
set ylabel ylabel
set grid
set key below vertical maxrows 2 box spacing 1.6 samplen 2.5
set bmargin 8  # room for the x label and the key under it: gnuplot reserves too little for big markers
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
# a kind of point with no block (-1) is left out by its empty loop; gnuplot parses its index all the same
ix(i) = i >= 0 ? i : 0
plot for [k=1:(have_base)] base with lines dt 2 lw 2 lc rgb '#ff7f0e' title base_label, \
     for [k=1:(i_screen >= 0)] dat index ix(i_screen) using 1:2 with points pt 6 ps 0.9 lc rgb '#6baed6' title screen_label, \
     for [k=1:(i_full >= 0)] dat index ix(i_full) using 1:2 with points pt 7 ps 1.1 lc rgb '#1f77b4' title full_label, \
     for [k=1:(i_infeas >= 0)] dat index ix(i_infeas) using 1:2 with points pt 2 ps 1.2 lw 1.5 lc rgb '#7f7f7f' title 'violates a constraint', \
     for [k=1:(i_best >= 0)] dat index ix(i_best) using 1:2 with steps lw 2.5 lc rgb '#d62728' title 'best so far'
