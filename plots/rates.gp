# Sending rate (solid) and the congestion control's second rate (dashed: DCQCN's target rate, the rate Swift's
# window implies, ...) of each flow over time, and alpha below (same colour per flow).  Gaps: the flow was not
# active.  The rate axis is the sending rates' (ymax): a dashed line above it is cut at the top.
# Set by rocesim before this template: name, xunit, xend, nf, fname[1..nf],
# has_alpha, alpha_label (what the alpha column holds for the run's host.cc), alpha_bounded (it is a fraction),
# has_target (a second rate differs from the rate somewhere: else no dashed line), target_label (what the dashed
# line is), ymax, subtitle.  Data: rates.dat (time, nf rates in Gbps, nf target rates in Gbps, nf alphas; NaN where
# a flow was not active).
if (!exists("outname")) outname = 'rates.png'
set terminal pngcairo size 1100,(has_alpha ? 820 : 560) noenhanced font 'DejaVu Sans,10'
set output outname
# ten colours that stay apart (matplotlib's tab10)
set linetype 1 lc rgb '#1f77b4'
set linetype 2 lc rgb '#ff7f0e'
set linetype 3 lc rgb '#2ca02c'
set linetype 4 lc rgb '#d62728'
set linetype 5 lc rgb '#9467bd'
set linetype 6 lc rgb '#8c564b'
set linetype 7 lc rgb '#e377c2'
set linetype 8 lc rgb '#17becf'
set linetype 9 lc rgb '#bcbd22'
set linetype 10 lc rgb '#7f7f7f'
set linetype cycle 10
set grid
set key outside right top box width 1
set xrange [0:xend > 0 ? xend : 1]
set lmargin at screen 0.08
set rmargin at screen 0.76
if (has_alpha) {
    set multiplot layout 2,1 title sprintf("Flow rates and %s: %s\n%s", alpha_label, name, subtitle)
} else {
    set title sprintf("Flow rates: %s\n%s (cc none: line rate, or the flow's own rate cap)", name, subtitle)
}
set xlabel sprintf('simulated time (%s)', xunit)
set ylabel 'rate (Gbps)'
# room above line rate, where flows spend much of their time (ymax is 6 % above the highest sending rate)
set yrange [0:ymax]
if (has_alpha && has_target) {
    plot for [i=1:nf] 'rates.dat' using 1:(column(i+1)) with lines lw 1.5 lc i title fname[i], \
         for [i=1:nf] 'rates.dat' using 1:(column(nf+i+1)) with lines dt 2 lw 1 lc i notitle, \
         NaN with lines dt 2 lw 1 lc rgb '#606060' title sprintf('%s (dashed)', target_label)
} else {
    plot for [i=1:nf] 'rates.dat' using 1:(column(i+1)) with lines lw 1.5 lc i title fname[i]
}
if (has_alpha) {
    set ylabel alpha_label
    if (alpha_bounded) { set yrange [0:1.05] } else { set yrange [*:*] }
    plot for [i=1:nf] 'rates.dat' using 1:(column(2*nf+i+1)) with lines lw 1.5 lc i title fname[i]
    unset multiplot
}
