# Egress queue depth over time: one line per monitored (switch port, priority),
# ECN marking thresholds as dashed horizontal lines.
# Set by rocesim before this template: name, xunit, xend, nq, qname[1..nq],
# subtitle, ecn, kmin_kb, kmax_kb.  Data: queues.dat (time, then one column per
# queue, in KB; each point is the maximum over the samples it stands for).
if (!exists("outname")) outname = 'queues.png'
set terminal pngcairo size 1100,620 noenhanced font 'DejaVu Sans,10'
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
set title sprintf("Egress queue depth: %s\n%s", name, subtitle)
set xlabel sprintf('simulated time (%s)', xunit)
set ylabel 'queue depth (KB)'
set grid
set key outside right top box width 1
set xrange [0:xend > 0 ? xend : 1]
set yrange [0:*]
if (ecn) {
    plot for [i=1:nq] 'queues.dat' using 1:(column(i+1)) with lines lw 1.5 title qname[i], \
         kmin_kb with lines dt 2 lw 2 lc rgb '#555555' title sprintf('ECN kmin (%g KB)', kmin_kb), \
         kmax_kb with lines dt 4 lw 2 lc rgb '#000000' title sprintf('ECN kmax (%g KB)', kmax_kb)
} else {
    plot for [i=1:nq] 'queues.dat' using 1:(column(i+1)) with lines lw 1.5 title qname[i]
}
